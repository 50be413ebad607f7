import { useEffect, useState } from 'react'
import { RouterProvider } from 'react-router'
import { AppProvider } from './provider'
import { getRouter } from './router'

/**
 * useFirstRouteShown is false until the first route has rendered. That render
 * is not a transition: in one, React holds the whole new page (home's hero,
 * the largest paint) until every lazy part in it has loaded, where a normal
 * render draws the page at once with those parts' fallbacks. Later
 * navigations keep React Router's transitions (the page shown stays until
 * the next one is ready).
 */
function useFirstRouteShown() {
  const router = getRouter()
  const [shown, setShown] = useState(router.state.initialized)
  useEffect(() => {
    if (shown) return
    // RouterProvider subscribed first (a layout effect): it has set the state when this runs.
    const unsubscribe = router.subscribe((s) => s.initialized && setShown(true))
    if (router.state.initialized) setShown(true)
    return unsubscribe
  }, [router, shown])
  return shown
}

/** App is the root component. */
export function App() {
  const shown = useFirstRouteShown()
  return (
    <AppProvider>
      <RouterProvider router={getRouter()} useTransitions={shown ? undefined : false} />
    </AppProvider>
  )
}
