export { handleCheckout as POST } from "@/lib/handlers/checkout";
