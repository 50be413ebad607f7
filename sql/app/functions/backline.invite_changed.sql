CREATE OR REPLACE FUNCTION backline.invite_changed() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  artist text := backline.display_name(NEW.artist_id);
  sponsor text := backline.display_name(NEW.sponsor_id);
  track text := (SELECT title FROM public.tracks WHERE id = NEW.track_id);
  data jsonb := jsonb_build_object('invite_id', NEW.id, 'artist_id', NEW.artist_id, 'sponsor_id', NEW.sponsor_id,
    'track_id', NEW.track_id, 'pitch', NEW.pitch);
  initiator uuid := CASE NEW.initiated_by WHEN 'sponsor' THEN NEW.sponsor_id ELSE NEW.artist_id END;
  invitee uuid := CASE NEW.initiated_by WHEN 'sponsor' THEN NEW.artist_id ELSE NEW.sponsor_id END;
  n int;
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NEW.initiated_by = 'sponsor' THEN
      PERFORM backline.notify(NEW.artist_id, 'sponsor_invite', 'New Sponsorship Invitation',
        format('%s wants to sponsor %s', sponsor, coalesce('your track "' || track || '"', 'you')), data);
    ELSE
      PERFORM backline.notify(NEW.sponsor_id, 'artist_invite', 'New Sponsorship Request',
        format('%s is asking you to sponsor %s', artist, coalesce('the track "' || track || '"', 'them')), data);
    END IF;
    PERFORM backline.log_activity(initiator, 'invite.created', 'invite', NEW.id::text, data);
    RETURN NULL;
  END IF;
  IF NEW.status = OLD.status THEN
    RETURN NULL;
  END IF;
  IF NEW.status = 'accepted' THEN
    IF NEW.track_id IS NOT NULL THEN
      UPDATE public.tracks SET is_sponsored = true, sponsor_id = NEW.sponsor_id
      WHERE id = NEW.track_id AND artist_id = NEW.artist_id
        AND (NOT is_sponsored OR sponsor_id IS NULL OR sponsor_id = NEW.sponsor_id);
      GET DIAGNOSTICS n = ROW_COUNT;
      IF n = 0 THEN
        RAISE EXCEPTION 'Track is already sponsored' USING ERRCODE = 'P0001';
      END IF;
      -- The track is taken: other open pitches for it lapse.
      UPDATE public.sponsor_artist_invites SET status = 'rejected', responded_at = now()
      WHERE track_id = NEW.track_id AND status = 'pending' AND id <> NEW.id;
    END IF;
    PERFORM backline.notify(initiator, 'system_update', 'Invitation Accepted',
      format('%s accepted your sponsorship %s', CASE NEW.initiated_by WHEN 'sponsor' THEN artist ELSE sponsor END,
        CASE NEW.initiated_by WHEN 'sponsor' THEN 'invitation' ELSE 'request' END), data);
    PERFORM backline.notify(invitee, 'system_update', 'Sponsorship Active',
      format('You are now in a sponsorship with %s%s', CASE NEW.initiated_by WHEN 'sponsor' THEN sponsor ELSE artist END,
        coalesce(' for "' || track || '"', '')), data);
  ELSIF NEW.status = 'rejected' THEN
    PERFORM backline.notify(initiator, 'system_update', 'Invitation Declined',
      format('%s declined your sponsorship %s', CASE NEW.initiated_by WHEN 'sponsor' THEN artist ELSE sponsor END,
        CASE NEW.initiated_by WHEN 'sponsor' THEN 'invitation' ELSE 'request' END), data);
  END IF;
  PERFORM backline.log_activity(auth.uid(), 'invite.' || NEW.status, 'invite', NEW.id::text, data);
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER invite_changed AFTER INSERT OR UPDATE OF status ON public.sponsor_artist_invites
  FOR EACH ROW EXECUTE FUNCTION backline.invite_changed();

REVOKE ALL ON FUNCTION backline.invite_changed() FROM PUBLIC, anon, authenticated, service_role;
