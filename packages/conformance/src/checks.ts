import { describe, keyOf, retryAfter, sameAnswer, send, settle, type Answer, type Sent } from "./http";
import type { Check, Report, Target } from "./target";

/**
 * The contract's properties, each checked on its own key and subject, one
 * after another: the effect counter is compared before and after each, so
 * nothing else may have effects on the target meanwhile.
 */
type Property = (target: Target) => Promise<Check[]>;

const check = (name: string, pass: boolean, detail: string): Check => ({ name, pass, detail });
const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;

async function fresh(target: Target, body: unknown = target.bodies.base()): Promise<Sent> {
  return { subject: await target.subject(), key: keyOf(target), body };
}

/** Runs `act` and answers how many effects the target had meanwhile. */
async function counting<T>(target: Target, act: () => Promise<T>): Promise<[T, number]> {
  const before = await target.effects();
  const result = await act();
  return [result, (await target.effects()) - before];
}

const missingKey: Property = async (target) => {
  const expected = target.expect?.missingKey ?? 400;
  const sent = { ...(await fresh(target)), key: null };
  const [answer, effects] = await counting(target, () => send(target, sent));
  return [
    check(
      "key.missing",
      answer.status === expected && effects === 0,
      `no key: ${describe(answer)}; ${plural(effects, "effect")} (want ${expected}, none)`,
    ),
  ];
};

const malformedKey: Property = async (target) => {
  const expected = target.expect?.malformedKey ?? 400;
  const sent = { ...(await fresh(target)), key: target.malformedKey ?? "not-a-key" };
  const [answer, effects] = await counting(target, () => send(target, sent));
  return [
    check(
      "key.malformed",
      answer.status === expected && effects === 0,
      `key ${JSON.stringify(sent.key)}: ${describe(answer)}; ${plural(effects, "effect")} (want ${expected}, none)`,
    ),
  ];
};

const storm: Property = async (target) => {
  const copies = target.storm ?? 30;
  const sent = await fresh(target);
  const [[answers, stored], effects] = await counting(target, async () => {
    const answers = await Promise.all(Array.from({ length: copies }, () => send(target, sent)));
    return [answers, await settle(target, sent)] as const;
  });
  const waited = answers.filter((a) => a.status === 409 && retryAfter(a) !== null).length;
  const replayed = answers.filter((a) => sameAnswer(a, stored)).length;
  const odd = answers.filter((a) => !(a.status === 409 && retryAfter(a) !== null) && !sameAnswer(a, stored));
  return [
    check(
      "storm.one-effect",
      effects === 1,
      `${copies} copies under one key, then one asking for the stored answer: ${plural(effects, "effect")}; stored answer ${describe(stored)}`,
    ),
    check(
      "storm.answers",
      odd.length === 0,
      `${waited} × 409 with Retry-After, ${replayed} × the stored answer byte for byte` +
        (odd.length ? `, ${odd.length} other (first: ${describe(odd[0]!)})` : ""),
    ),
  ];
};

/**
 * The first answer is lost after the effect: held at the target's hold and
 * cut there, or, without one, cut once the effect counter moved (if the whole
 * answer came first, it is kept and compared too).
 */
const droppedResponse: Property = async (target) => {
  const sent = await fresh(target);
  const abort = new AbortController();
  let first: Answer | null = null;
  const [[retry, again], effects] = await counting(target, async () => {
    const before = await target.effects();
    await target.hold?.close();
    const pending = send(target, { ...sent, signal: abort.signal }).then(
      (answer) => void (first = answer),
      () => undefined,
    );
    if (target.hold) {
      try {
        await Promise.race([target.hold.held(), pending]);
      } finally {
        abort.abort();
        await target.hold.open();
      }
    } else {
      const deadline = Date.now() + (target.settleMs ?? 60_000);
      while ((await target.effects()) === before && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      abort.abort();
    }
    await pending;
    const retry = await settle(target, sent);
    return [retry, await send(target, sent)] as const;
  });
  const lost = first as Answer | null;
  const replays = sameAnswer(retry, again) && (lost === null || sameAnswer(lost, retry));
  return [
    check(
      "dropped-response.replay",
      replays,
      `${lost ? `first answer ${describe(lost)}, ` : "first answer lost, "}retry ${describe(retry)}` +
        (sameAnswer(retry, again) ? ", the next the same" : `, the next ${describe(again)}`),
    ),
    check("dropped-response.one-effect", effects === 1, `lost answer then retries: ${plural(effects, "effect")}`),
  ];
};

function changedBody(name: string, change: (target: Target) => unknown): Property {
  return async (target) => {
    const expected = target.expect?.changedBody ?? 422;
    const sent = await fresh(target);
    const [[stored, changed], effects] = await counting(target, async () => {
      const stored = await settle(target, sent);
      return [stored, await send(target, { ...sent, body: change(target) })] as const;
    });
    return [
      check(
        name,
        changed.status === expected && effects === 1,
        `first ${describe(stored)}; changed body ${describe(changed)}; ${plural(effects, "effect")} (want ${expected}, one)`,
      ),
    ];
  };
}

/**
 * Two subjects, one key: neither is ever answered with the other's answer —
 * the second with the first's stored one, or the first, asking again, with
 * the second's. (A replay that differs for other reasons is the dropped
 * answer's property, not this one's.)
 */
const subjects: Property = async (target) => {
  const a = await fresh(target);
  const b = { ...a, subject: await target.subject() };
  const [[first, second, firstAgain], effects] = await counting(target, async () => {
    const first = await settle(target, a);
    const second = await settle(target, b);
    return [first, second, await send(target, a)] as const;
  });
  const secondGotFirst = sameAnswer(first, second) && effects < 2;
  const firstGotSecond = !sameAnswer(first, second) && sameAnswer(firstAgain, second);
  return [
    check(
      "subjects.no-leak",
      !secondGotFirst && !firstGotSecond,
      secondGotFirst
        ? `the second subject got the first's answer (${describe(second)}); ${plural(effects, "effect")}`
        : firstGotSecond
          ? `the first subject, asking again, got the second's answer (${describe(firstAgain)})`
          : `each its own: ${describe(first)} / ${describe(second)}`,
    ),
  ];
};

/** The server dies while the effect is held, the effect completes, the server comes back, the retry: one effect. */
const crash: Property = async (target) => {
  const { hold, restart } = target;
  if (!hold || !restart) return [];
  const sent = await fresh(target);
  const [[retry, again], effects] = await counting(target, async () => {
    await hold.close();
    const pending = send(target, sent).catch(() => null);
    try {
      await hold.held();
      await restart.stop();
    } finally {
      await hold.open();
    }
    await pending;
    await restart.start();
    const retry = await settle(target, sent);
    return [retry, await send(target, sent)] as const;
  });
  return [
    check(
      "crash.one-effect",
      effects === 1 && retry.status < 300 && sameAnswer(retry, again),
      `killed mid-effect, retried: ${describe(retry)}` +
        (sameAnswer(retry, again) ? "" : `, then ${describe(again)}`) +
        `; ${plural(effects, "effect")}`,
    ),
  ];
};

const PROPERTIES: Array<[string, Property]> = [
  ["key.missing", missingKey],
  ["key.malformed", malformedKey],
  ["storm", storm],
  ["dropped-response", droppedResponse],
  ["changed-body.nested", changedBody("changed-body.nested", (t) => t.bodies.nestedChange())],
  ["changed-body.top-level", changedBody("changed-body.top-level", (t) => t.bodies.topLevelChange())],
  ["subjects.no-leak", subjects],
  ["crash.one-effect", crash],
];

/** Runs every property the target's hooks allow, one after another; a property that throws fails with the error. */
export async function runConformance(target: Target): Promise<Report> {
  const checks: Check[] = [];
  const notRun: string[] = [];
  for (const [name, property] of PROPERTIES) {
    try {
      const found = await property(target);
      if (found.length === 0) notRun.push(`${name} (needs the hold and restart hooks)`);
      checks.push(...found);
    } catch (error) {
      checks.push(check(name, false, `could not run: ${error instanceof Error ? error.message : String(error)}`));
    }
  }
  return { target: target.name, pass: checks.every((c) => c.pass), checks, notRun };
}
