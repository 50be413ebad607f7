import { RouterProvider } from 'react-router'
import { AppProvider } from './provider'
import { getRouter } from './router'

/** App is the root component. */
export function App() {
  return (
    <AppProvider>
      <RouterProvider router={getRouter()} />
    </AppProvider>
  )
}
