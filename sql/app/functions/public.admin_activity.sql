CREATE OR REPLACE FUNCTION public.admin_activity(p_kind text DEFAULT NULL, p_user_id uuid DEFAULT NULL,
  p_from timestamptz DEFAULT NULL, p_to timestamptz DEFAULT NULL, p_before_at timestamptz DEFAULT NULL,
  p_before_key text DEFAULT NULL, p_limit integer DEFAULT 50)
RETURNS TABLE (at timestamptz, key text, kind text, action text, actor_id uuid, actor_name text,
  subject_type text, subject_id text, details jsonb)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp
  SET plan_cache_mode = force_custom_plan AS $$
DECLARE
  n int := backline.page_size(p_limit);
  k text := nullif(btrim(coalesce(p_kind, '')), '');
  -- The upper bound: the cursor's time, else the end of the date filter.
  hi timestamptz := least(coalesce(p_before_at, 'infinity'), coalesce(p_to, 'infinity'));
  ck text := CASE WHEN p_before_at IS NOT NULL AND p_before_at <= coalesce(p_to, 'infinity') THEN p_before_key END;
  lo timestamptz := coalesce(p_from, '-infinity');
BEGIN
  PERFORM backline.admin_actor();
  IF k IS NOT NULL AND k NOT IN ('signup', 'upload', 'payment', 'cashout', 'invite', 'fraud', 'verification',
      'account', 'stream', 'stream_valid', 'stream_rejected', 'admin') THEN
    RAISE EXCEPTION 'Unknown activity kind %', k USING ERRCODE = 'P0001';
  END IF;
  RETURN QUERY
  WITH act AS (
    SELECT a.created_at AS at, 'a:' || lpad(a.id::text, 20, '0') AS key, backline.activity_kind(a.action) AS kind,
      a.action, a.actor_id, a.entity_type AS subject_type, a.entity_id AS subject_id, a.details
    FROM public.activity_log a
    WHERE (k IS NULL OR k NOT IN ('stream', 'stream_valid', 'stream_rejected', 'admin'))
      AND (k IS NULL OR backline.activity_kind(a.action) = k)
      AND (p_user_id IS NULL OR a.actor_id = p_user_id)
      AND a.created_at <= hi AND a.created_at >= lo
      AND (ck IS NULL OR a.created_at < hi OR ('a:' || lpad(a.id::text, 20, '0')) COLLATE "C" < ck COLLATE "C")
    ORDER BY a.created_at DESC, a.id DESC
    LIMIT n
  ), str AS (
    SELECT s.created_at AS at, 's:' || s.id::text AS key, 'stream'::text AS kind,
      CASE WHEN s.is_valid THEN 'stream.valid' ELSE 'stream.rejected' END AS action, s.user_id AS actor_id,
      'track'::text AS subject_type, s.track_id::text AS subject_id,
      jsonb_build_object('is_valid', s.is_valid, 'invalid_reason', s.invalid_reason, 'duration', s.duration,
        'paid', s.paid_reference IS NOT NULL) AS details
    FROM public.streams s
    WHERE (k IS NULL OR k IN ('stream', 'stream_valid', 'stream_rejected'))
      AND (k IS DISTINCT FROM 'stream_valid' OR s.is_valid)
      AND (k IS DISTINCT FROM 'stream_rejected' OR NOT s.is_valid)
      AND (p_user_id IS NULL OR s.user_id = p_user_id)
      AND s.created_at <= hi AND s.created_at >= lo
      AND (ck IS NULL OR s.created_at < hi OR ('s:' || s.id::text) COLLATE "C" < ck COLLATE "C")
    ORDER BY s.created_at DESC, s.id DESC
    LIMIT n
  ), adm AS (
    SELECT x.created_at AS at, 'x:' || lpad(x.id::text, 20, '0') AS key, 'admin'::text AS kind, x.action,
      x.actor_id, x.target_type AS subject_type, x.target_id AS subject_id,
      jsonb_build_object('reason', x.reason, 'before', x.before, 'after', x.after) AS details
    FROM public.admin_audit_log x
    WHERE (k IS NULL OR k = 'admin')
      AND (p_user_id IS NULL OR x.actor_id = p_user_id)
      AND x.created_at <= hi AND x.created_at >= lo
      AND (ck IS NULL OR x.created_at < hi OR ('x:' || lpad(x.id::text, 20, '0')) COLLATE "C" < ck COLLATE "C")
    ORDER BY x.created_at DESC, x.id DESC
    LIMIT n
  ), page AS (
    SELECT u.* FROM (SELECT * FROM act UNION ALL SELECT * FROM str UNION ALL SELECT * FROM adm) u
    ORDER BY u.at DESC, u.key COLLATE "C" DESC
    LIMIT n
  )
  -- A stream entry names its track's title; a payment's creation and
  -- completion what the payment charged (the log keeps the base amount only):
  -- amount, VAT, fee and total, read by its unique (provider, tx_ref).
  SELECT page.at, page.key, page.kind, page.action, page.actor_id, backline.person_name(page.actor_id),
    page.subject_type, page.subject_id,
    CASE WHEN page.kind = 'stream' THEN page.details || jsonb_build_object('title',
        (SELECT t.title FROM public.tracks t WHERE t.id = page.subject_id::uuid))
      WHEN page.kind = 'payment' AND page.subject_type = 'payment' AND page.details ? 'provider' THEN page.details || coalesce(
        (SELECT jsonb_build_object('amount', p.amount, 'vat', p.vat, 'fee', p.fee, 'total', p.total)
         FROM public.payments p WHERE p.provider = page.details ->> 'provider' AND p.tx_ref = page.subject_id), '{}'::jsonb)
      ELSE page.details END
  FROM page
  ORDER BY page.at DESC, page.key COLLATE "C" DESC;
END $$;

REVOKE ALL ON FUNCTION public.admin_activity(text, uuid, timestamp with time zone, timestamp with time zone, timestamp with time zone, text, integer) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.admin_activity(text, uuid, timestamp with time zone, timestamp with time zone, timestamp with time zone, text, integer) TO authenticated, service_role;
