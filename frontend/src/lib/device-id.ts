/** DEVICE_ID_KEY is the local storage key of this browser's device id. */
export const DEVICE_ID_KEY = 'backline_device_id'

/**
 * deviceId returns this browser's device id, creating it once from a fixed
 * prefix, the time and a random string. It doubles as the session id of the
 * user session record.
 */
export function deviceId(store: Storage = localStorage): string {
  let id = store.getItem(DEVICE_ID_KEY)
  if (!id) {
    id = `device_${Date.now()}_${Math.random().toString(36).slice(2, 11)}`
    store.setItem(DEVICE_ID_KEY, id)
  }
  return id
}
