/** Prose lays out an information page. */
export function Prose({ title, updated, children }: { title: string; updated?: string; children: React.ReactNode }) {
  return (
    <article className="mx-auto max-w-3xl py-4 [&_h2]:mb-2 [&_h2]:mt-8 [&_h2]:text-xl [&_h2]:font-semibold [&_li]:mb-1 [&_p]:mb-3 [&_p]:text-muted-foreground [&_ul]:mb-3 [&_ul]:list-disc [&_ul]:pl-6 [&_ul]:text-muted-foreground">
      <h1 className="text-3xl font-bold">{title}</h1>
      {updated && <p className="text-sm">Last updated: {updated}</p>}
      {children}
    </article>
  )
}
