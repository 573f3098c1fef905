import { OpsNotice, type Notice } from "./ops-notice";

/** The operator signs in with OPS_TOKEN and their name (kept with what they mark handled). */
export function SignIn({ notice }: { notice: Notice | undefined }) {
  return (
    <section className="ops" aria-labelledby="ops-title">
      <h1 id="ops-title">Operations</h1>
      <OpsNotice notice={notice} />
      <form method="post" action="/api/ops/session" className="ops-signin">
        <label htmlFor="ops-name">Your name</label>
        <input id="ops-name" name="name" autoComplete="name" required maxLength={80} />
        <label htmlFor="ops-token">Operator token (OPS_TOKEN)</label>
        <input id="ops-token" name="token" type="password" autoComplete="current-password" required />
        <button type="submit">Sign in</button>
      </form>
    </section>
  );
}
