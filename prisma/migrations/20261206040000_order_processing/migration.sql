-- A payment Stripe has accepted and not yet decided (SEPA Direct Debit): the order carries it, not the key.
ALTER TYPE "order_status" ADD VALUE 'processing' AFTER 'pending';
