/**
 * The plan's request allowance (SPEC 9): at 0 units the free plan's request count,
 * otherwise units times the requests per unit. Account Information (usage graph, limit
 * line) and Billing (slider) both show it, so it lives here once.
 */

export interface PlanTerms {
  units: number;
  unitPlanRequests: number;
  freePlanRequests: number;
}

export function allowedRequests({ units, unitPlanRequests, freePlanRequests }: PlanTerms): number {
  return units === 0 ? freePlanRequests : units * unitPlanRequests;
}
