// Shared by the app and its service worker, which is built apart: the names
// of what the worker answers for offline listening.

/** OFFLINE_CACHE is the cache holding downloads; the service worker answers from it first. */
export const OFFLINE_CACHE = 'backline-offline'

/** AUDIO_CACHE is the cache of audio kept as it plays (the service worker's). */
export const AUDIO_CACHE = 'audio'
