export { accountQueryOptions, cycleUsageQueryOptions, useAccount, useUpdateAccountName } from "./api/account";
