"use client";

import { useQuery } from "@tanstack/react-query";
import { sessionQuery } from "./queries";

/**
 * The shopper's guest session, started when absent. Queries that need it
 * wait for it themselves; pages call this to start it early and to show
 * when the shop cannot be reached at all.
 */
export function useSession() {
  return useQuery(sessionQuery);
}
