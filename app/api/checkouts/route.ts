export { createCheckout as POST } from "@/lib/handlers/checkouts";
