-- Moves a track to a moderation status, audits it and tells the artist.
CREATE OR REPLACE FUNCTION backline.moderate_track(p_track_id uuid, p_status text, p_reason text, p_action text,
  p_title text, p_message text) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  actor uuid := backline.admin_actor();
  -- Taking a track away needs a reason; giving it back does not.
  v_reason text := CASE WHEN p_status = 'active' THEN nullif(btrim(p_reason), '') ELSE backline.require_reason(p_reason) END;
  t public.tracks;
  before jsonb;
  after jsonb;
BEGIN
  SELECT * INTO t FROM public.tracks WHERE id = p_track_id FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'Track not found' USING ERRCODE = 'P0001';
  END IF;
  IF t.status = p_status THEN
    RAISE EXCEPTION 'Track is already %', p_status USING ERRCODE = 'P0001';
  END IF;
  before := backline.track_state(p_track_id);
  UPDATE public.tracks SET status = p_status, moderation_reason = CASE WHEN p_status = 'active' THEN NULL ELSE v_reason END,
    moderated_at = now(), moderated_by = actor
  WHERE id = p_track_id;
  after := backline.track_state(p_track_id);
  PERFORM backline.audit(actor, p_action, 'track', p_track_id::text, v_reason, before, after);
  PERFORM backline.notify(t.artist_id, 'system_update', p_title, format(p_message, t.title, v_reason),
    jsonb_build_object('track_id', t.id, 'status', p_status, 'reason', v_reason));
  RETURN jsonb_build_object('success', true, 'track_id', t.id) || after;
END $$;

REVOKE ALL ON FUNCTION backline.moderate_track(uuid, text, text, text, text, text) FROM PUBLIC, anon, authenticated, service_role;
