// The handler lives beside the route so the lab's lossy route can call it too.
export { handleCheckout as POST } from "./checkout-handler";
