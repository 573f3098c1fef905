-- The shop this database belongs to, named once (lib/shop-identity.ts): every process of one database then signs and
-- judges intents as the same shop, whatever host or data folder it runs from.
CREATE TABLE "shop_identity" (
    "singleton" BOOLEAN NOT NULL DEFAULT true,
    "shop_id" TEXT NOT NULL,
    "named_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "shop_identity_pkey" PRIMARY KEY ("singleton"),
    CONSTRAINT "shop_identity_singleton_check" CHECK ("singleton")
);
