/**
 * /activity: the account's audit log (README "Audit log"), for Owners and Admins: the
 * events newest first, filtered by who, action and days (kept in the URL, so a filtered view
 * can be shared), 50 at a time with "Load more", and "Export CSV" of the filtered log.
 */
import { useState } from "react";
import { useSearchParams } from "react-router";

import { errorMessage } from "@/api";
import { PageHeader } from "@/components/layout/PageHeader";
import { Button } from "@/components/ui/Button";
import { InfoBox } from "@/components/ui/InfoBox";
import { Panel } from "@/components/ui/Panel";
import { Spinner } from "@/components/ui/Spinner";

import { downloadAuditCsv, useAuditEvents, useSessionRole } from "../api/activity";
import { ActivityFilters } from "../components/ActivityFilters";
import { EventsTable } from "../components/EventsTable";
import styles from "../components/activity.module.css";
import { canReadActivity } from "@/lib/permissions";
import { type ActivityFilters as Filters, apiQuery, filtersFromSearch, hasFilters, searchOfFilters } from "../lib/filters";

const TITLE = "Activity";
const DESCRIPTION = "Who changed what in this account, newest first. Events are kept for one year.";

export function Component() {
  const { data: role } = useSessionRole();
  if (!canReadActivity(role)) {
    return (
      <>
        <PageHeader title={TITLE} />
        <InfoBox variant="info" title="Only Owners and Admins can see the activity log">
          Ask an Owner or an Admin of your account if you need to know who changed what.
        </InfoBox>
      </>
    );
  }
  return <ActivityLog />;
}

function ActivityLog() {
  const [search, setSearch] = useSearchParams();
  const filters = filtersFromSearch(search);
  const query = apiQuery(filters);
  const events = useAuditEvents(query);
  const [exporting, setExporting] = useState(false);
  const [exportError, setExportError] = useState<string | null>(null);
  const setFilters = (next: Filters) => setSearch(searchOfFilters(next), { replace: true });
  const shown = events.data?.pages.flatMap((page) => page.events) ?? [];

  const exportButton = (
    <Button
      variant="secondary"
      loading={exporting}
      onClick={() => {
        setExporting(true);
        setExportError(null);
        downloadAuditCsv(query)
          .catch((err: unknown) => setExportError(errorMessage(err)))
          .finally(() => setExporting(false));
      }}
    >
      Export CSV
    </Button>
  );

  return (
    <>
      <PageHeader title={TITLE} description={DESCRIPTION} actions={exportButton} />
      {exportError ? (
        <InfoBox variant="error" title="The export failed" className={styles.exportError}>
          {exportError}
        </InfoBox>
      ) : null}
      <Panel title="Events" aria-label="Events">
        <ActivityFilters filters={filters} onChange={setFilters} />
        {events.isPending ? (
          <div className={styles.state}>
            <Spinner size={16} /> Loading activity…
          </div>
        ) : !events.data ? (
          <InfoBox variant="error" title="The activity log could not be loaded">
            {errorMessage(events.error)}
          </InfoBox>
        ) : shown.length === 0 ? (
          <div className={styles.empty}>
            {hasFilters(filters) ? (
              <>
                <p>No events match these filters.</p>
                <p>Try other dates or actions, or clear the filters.</p>
              </>
            ) : (
              <>
                <p>No activity yet.</p>
                <p>Sign-ins and every change to users, single sign-on, billing and API keys show here.</p>
              </>
            )}
          </div>
        ) : (
          <>
            <EventsTable events={shown} />
            <div className={styles.more}>
              <span>
                {events.hasNextPage ? "Showing the newest " : ""}
                {shown.length} {shown.length === 1 ? "event" : "events"}
              </span>
              {events.isFetchNextPageError ? (
                <span role="alert" className={styles.error}>
                  {errorMessage(events.error)}
                </span>
              ) : null}
              {events.hasNextPage ? (
                <Button
                  variant="secondary"
                  loading={events.isFetchingNextPage}
                  onClick={() => void events.fetchNextPage()}
                >
                  Load more
                </Button>
              ) : null}
            </div>
          </>
        )}
      </Panel>
    </>
  );
}
