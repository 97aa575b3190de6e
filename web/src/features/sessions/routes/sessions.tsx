/**
 * /sessions, 'Sessions' (README "Sessions"; docs/users/sessions.md), for every signed-in
 * person, from the account menu: where they are signed in, this browser's first and marked;
 * 'Sign out' ends another session after a confirmation, and 'Sign out all other sessions'
 * (disabled, with the reason, while there is none) ends every one but this browser's, then says
 * how many ended. An ended session's next request is refused (401 SessionEnded) and its browser
 * goes to the sign-in page, which says why.
 */
import { Suspense, useState } from "react";

import { errorMessage } from "@/api";
import { ExternalIcon } from "@/components/icons";
import { PageHeader } from "@/components/layout/PageHeader";
import page from "@/components/layout/page.module.css";
import { preloaded } from "@/components/preloaded";
import { Button } from "@/components/ui/Button";
import { DisabledReason } from "@/components/ui/DisabledReason";
import { InfoBox } from "@/components/ui/InfoBox";
import { Panel } from "@/components/ui/Panel";
import { Spinner } from "@/components/ui/Spinner";
import { useNow } from "@/components/relative-time";
import { config } from "@/config";
import { handbookPage } from "@/lib/handbook";

import { useSessions } from "../api/sessions";
import { SessionsTable } from "../components/SessionsTable";
import styles from "../components/sessions.module.css";
import { type Session, endedText, listSummary } from "../lib/format";

// The confirmations, shown on request: chunks of their own, fetched as this module runs, so the
// page's first paint does not wait for them (the first-load budget, README "Performance").
const EndSessionModal = preloaded(() => import("../components/EndSessionModal").then((m) => m.EndSessionModal));
const EndOtherSessionsModal = preloaded(() =>
  import("../components/EndOtherSessionsModal").then((m) => m.EndOtherSessionsModal),
);

const ONLY_THIS_BROWSER = "You are signed in in this browser only.";

const DESCRIPTION = (
  <>
    Where you are signed in to the console. Sign out a session you don&apos;t recognise, or every other one if
    you lose a device.{" "}
    <a
      className={styles.docsLink}
      href={handbookPage(config.docsUrl, "users/sessions")}
      target="_blank"
      rel="noreferrer"
    >
      How sessions work
      <ExternalIcon />
    </a>
  </>
);

export function Component() {
  const { data, error } = useSessions();
  const now = useNow(60_000);
  const [ending, setEnding] = useState<Session | null>(null);
  const [endingOthers, setEndingOthers] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const count = data?.sessions.length ?? 0;
  const others = data?.sessions.filter((s) => !s.current).length ?? 0;

  return (
    <>
      <PageHeader
        title="Sessions"
        description={DESCRIPTION}
        actions={
          <DisabledReason reason={data && others === 0 ? ONLY_THIS_BROWSER : null} side="bottom" align="end">
            <Button
              variant="secondary"
              disabled={others === 0}
              onClick={() => {
                setNotice(null);
                setEndingOthers(true);
              }}
            >
              Sign out all other sessions
            </Button>
          </DisabledReason>
        }
      />
      {error ? (
        <InfoBox variant="error" title="Your sessions could not be loaded">
          {errorMessage(error)}
        </InfoBox>
      ) : !data ? (
        <div className={styles.state}>
          <Spinner size={16} /> Loading your sessions…
        </div>
      ) : (
        <div className={page.stack}>
          {notice ? <InfoBox variant="info" title={notice} /> : null}
          <Panel title="Signed-in sessions" description={listSummary(data.sessions)}>
            {count ? (
              <SessionsTable
                sessions={data.sessions}
                nowMs={now}
                onEnd={(session) => {
                  setNotice(null);
                  setEnding(session);
                }}
              />
            ) : (
              <p className={styles.empty}>No session of yours is recorded.</p>
            )}
          </Panel>
        </div>
      )}
      <Suspense fallback={null}>
        {ending ? (
          <EndSessionModal
            session={ending}
            nowMs={now}
            onClose={() => setEnding(null)}
            onEnded={(device) => {
              setEnding(null);
              setNotice(`Signed out ${device}.`);
            }}
          />
        ) : null}
        {endingOthers ? (
          <EndOtherSessionsModal
            others={others}
            onClose={() => setEndingOthers(false)}
            onEnded={(ended) => {
              setEndingOthers(false);
              setNotice(endedText(ended));
            }}
          />
        ) : null}
      </Suspense>
    </>
  );
}
