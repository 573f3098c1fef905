import { existsSync } from "node:fs";

// Scripts honour a .env file as Next.js does for the app; real environment
// variables win over the file.
if (existsSync(".env")) process.loadEnvFile(".env");
