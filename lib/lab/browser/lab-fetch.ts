import { LAB_REQUEST_HEADER, LAB_RUN_HEADER, type Lane } from "@/lib/lab/lab-event";

/**
 * The fetch a lab lane's press sends with: the browser's own fetch, plus the
 * headers that let the server file each request under this run, press and
 * try. With `loseFirst`, the press's first request goes through the lab's
 * lossy route instead of straight to the endpoint.
 */
export function labFetch(options: { runId: string; press: number; lane: Lane; loseFirst: boolean }): typeof fetch {
  let tries = 0;
  return (input, init) => {
    tries += 1;
    const headers = new Headers(init?.headers);
    headers.set(LAB_RUN_HEADER, options.runId);
    headers.set(LAB_REQUEST_HEADER, `${options.press}.${tries}`);
    const url = tries === 1 && options.loseFirst ? `/api/lab/lose-response?lane=${options.lane}` : input;
    return fetch(url, { ...init, headers });
  };
}
