import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from '@/app/app'
import { cachedEnv, loadEnv, setEnv } from '@/config/env'
import './index.css'

const root = createRoot(document.getElementById('root')!)

async function start() {
  try {
    await loadEnv()
  } catch (e) {
    // Offline launch of the installed app: reuse the last known config.
    const cached = cachedEnv()
    if (!cached) {
      root.render(<p style={{ padding: 24 }}>{(e as Error).message}</p>)
      return
    }
    setEnv(cached)
  }
  root.render(
    <StrictMode>
      <App />
    </StrictMode>,
  )
}

void start()
