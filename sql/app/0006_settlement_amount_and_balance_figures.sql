-- Sponsored-stream settlement: the configured amount is paid whatever the
-- client claims, and the answer shows balances only to whoever may read them.
--
-- settle_sponsored_stream runs as the listener, so its answer reaches a fan.
-- A wallet is readable by its owner and admins only (0002_rls.sql), so the
-- spec's 'Insufficient sponsor balance. Has X, needs Y' is for the sponsor
-- and admins; anyone else reads 'Insufficient sponsor balance'. The
-- balances after a payment follow the same rule (the artist's is the
-- artist's). stream_settlements keeps the whole result for admins, and the
-- answer is cut for the caller on every return, a repeated reference too.

-- Who the settlement concerned, so a repeated reference is cut the same way.
--
-- Its functions (with their triggers) and policies moved to functions/ and
-- policies/, one file each. A database that applied it before keeps its record:
-- replaces: ab2b46cfce3f3a2859f9b3ce40fbc582fba362cc35f545683f7c196028f0dcf6
ALTER TABLE public.stream_settlements ADD COLUMN artist_id uuid, ADD COLUMN sponsor_id uuid;

-- Earlier results: parties from the ledger where money moved, and the
-- figure-free text for refusals that carry the balance. Without parties only
-- admins see figures.
UPDATE public.stream_settlements s SET artist_id = t.to_wallet, sponsor_id = t.from_wallet
FROM public.transactions t WHERE t.reference = s.reference AND t.kind = 'sponsored_stream';
UPDATE public.stream_settlements SET result = result || '{"public_error": "Insufficient sponsor balance"}'
WHERE result ->> 'error' LIKE 'Insufficient sponsor balance. Has %';
