import type { toast as sonnerToast } from 'sonner'

type Sonner = typeof sonnerToast

// sonner is loaded on the first toast: the app shell's own toasts (sign-out,
// install, update, payment return) happen after the first paint, and keeping
// sonner out of the entry bundle is part of home's JavaScript budget. The
// Toaster, also loaded lazily, shows toasts raised before it mounted.
const load = () => import('sonner').then((m) => m.toast)

/** toast raises sonner's toasts from the app shell without putting sonner in the entry bundle. */
export const toast = {
  success: (...a: Parameters<Sonner['success']>) => void load().then((t) => t.success(...a)),
  info: (...a: Parameters<Sonner['info']>) => void load().then((t) => t.info(...a)),
  error: (...a: Parameters<Sonner['error']>) => void load().then((t) => t.error(...a)),
}
