-- Streams are private: a fan's listening history and its address key are
-- read by the fan and admins only (policies/public.streams.sql); charts, top
-- fans and the home page's figures read aggregates. Visitors lose the table.
DROP POLICY IF EXISTS "anyone can read streams" ON public.streams;
REVOKE SELECT ON public.streams FROM anon;
