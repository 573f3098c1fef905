export interface Notice {
  text: string;
  /** A refusal (a wrong token, a missing note): announced at once and styled as an error. */
  error: boolean;
}

/** The answer to the operator's last form post. */
export function OpsNotice({ notice }: { notice: Notice | undefined }) {
  if (!notice) return null;
  return notice.error ? (
    <p role="alert" className="ops-notice ops-error">
      {notice.text}
    </p>
  ) : (
    <p role="status" className="ops-notice">
      {notice.text}
    </p>
  );
}
