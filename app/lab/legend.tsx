/** What the timeline's colours and marks mean. */
const ITEMS = [
  ["paid", "201 — paid, first answer"],
  ["replay", "201 replay — the stored answer, nothing charged again"],
  ["wait", "409 / 503 with Retry-After — ask again later, same key"],
  ["error", "402, 500 — declined or failed"],
  ["lost", "✕ the browser never read this answer (cut off, or it had given up)"],
  ["pending", "still waiting for an answer"],
] as const;

export function Legend() {
  return (
    <section className="lab-legend" aria-labelledby="legend-heading">
      <h2 id="legend-heading" className="visually-hidden">
        Legend
      </h2>
      <ul>
        <li>
          <span className="lab-swatch lab-swatch-charge" aria-hidden="true" /> ◆ a charge at the gateway
        </li>
        {ITEMS.map(([tone, text]) => (
          <li key={tone}>
            <span className={`lab-swatch lab-tone-${tone}`} aria-hidden="true" /> {text}
          </li>
        ))}
      </ul>
    </section>
  );
}
