import { RouterProvider } from 'react-router'
import { AppProvider } from './provider'
import { router } from './router'

/** App is the root component. */
export function App() {
  return (
    <AppProvider>
      <RouterProvider router={router} />
    </AppProvider>
  )
}
