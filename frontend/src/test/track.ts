import type { Track } from '@/types/api'

/** aTrack is a client-side track for tests; `over` sets what the test is about. */
export const aTrack = (over: Partial<Track> = {}): Track => ({
  id: 't1',
  title: 'Song t1',
  artist: 'Ada',
  artistId: 'a1',
  artistAvatar: null,
  artistUsername: 'ada',
  coverUrl: null,
  audioUrl: '/storage/v1/object/public/tracks/x.mp3',
  duration: 180,
  isSponsored: false,
  sponsorId: null,
  sponsorName: null,
  sponsorUsername: null,
  sponsorAvatar: null,
  isExplicit: false,
  genre: 'Afrobeats',
  releaseYear: 2026,
  streams: 0,
  ...over,
})
