export { handleNaiveCheckout as POST } from "./naive-handler";
