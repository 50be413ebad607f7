import { memo, useMemo } from 'react'
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts'
import { Skeleton } from '@/components/ui/skeleton'
import { WhenSeen } from '@/components/when-seen'
import { formatNaira } from '@/lib/format'

// Recharts is loaded with this module only (the sponsor dashboard imports it
// lazily), so the dashboard's first screen does not wait for the library.
// Drawing one chart is a long task on a phone (the library renders it in
// several passes), so each chart is drawn when it comes near the screen.

/** SpendData is what the charts plot. */
export interface SpendData {
  per_day: { day: string; amount: number; streams: number }[]
  per_artist: { name: string; amount: number }[]
  per_track: { title: string; amount: number }[]
}

const axis = { fontSize: 11, fill: 'currentColor' }
const tip = (v: unknown) => formatNaira(Number(v))

function Chart({ title, data, x, vertical }: { title: string; data: Record<string, unknown>[]; x: string; vertical?: boolean }) {
  return (
    <figure className="min-w-0 rounded-xl border border-border bg-card p-3">
      <figcaption className="mb-2 text-sm font-semibold">{title}</figcaption>
      {data.length === 0 ? (
        <p className="py-10 text-center text-sm text-muted-foreground">No spending in this period</p>
      ) : (
        <WhenSeen className="h-56 text-muted-foreground" placeholder={<Skeleton className="h-full" />}>
          <ResponsiveContainer width="100%" height="100%">
            <BarChart data={data} layout={vertical ? 'vertical' : 'horizontal'} margin={{ left: vertical ? 8 : 0, right: 8 }}>
              <CartesianGrid strokeOpacity={0.15} />
              {vertical ? (
                <>
                  <XAxis type="number" tick={axis} />
                  <YAxis type="category" dataKey={x} tick={axis} width={90} />
                </>
              ) : (
                <>
                  <XAxis dataKey={x} tick={axis} />
                  <YAxis tick={axis} width={40} />
                </>
              )}
              <Tooltip formatter={tip} contentStyle={{ background: '#18181b', border: '1px solid #3f3f46' }} />
              <Bar dataKey="amount" name="Spent" fill="#f59e0b" radius={3} />
            </BarChart>
          </ResponsiveContainer>
        </WhenSeen>
      )}
    </figure>
  )
}

/** SpendCharts plots spend per day, per artist and per track; it renders again only for new data. */
export default memo(function SpendCharts({ data }: { data: SpendData }) {
  const days = useMemo(() => data.per_day.map((d) => ({ ...d, label: new Date(`${d.day}T00:00:00Z`).toLocaleDateString('en-NG', { day: 'numeric', month: 'short', timeZone: 'UTC' }) })), [data.per_day])
  const artists = useMemo(() => data.per_artist.slice(0, 8), [data.per_artist])
  const tracks = useMemo(() => data.per_track.slice(0, 8), [data.per_track])
  return (
    <div className="grid grid-cols-1 gap-3 lg:grid-cols-3" data-testid="spend-charts">
      <Chart title="Spend per day" data={days} x="label" />
      <Chart title="Spend per artist" data={artists} x="name" vertical />
      <Chart title="Spend per track" data={tracks} x="title" vertical />
    </div>
  )
})
