export { handleNaiveCheckout as POST } from "@/lib/lab/server/naive-handler";
