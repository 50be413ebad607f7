// EXPLAIN (FORMAT JSON) as a tree: each node with its relation, estimated
// and (with ANALYZE) actual rows and time.

type PlanNode = Record<string, unknown> & { 'Node Type': string; Plans?: PlanNode[] }

/** parsePlan reads EXPLAIN (FORMAT JSON)'s one value. */
export function parsePlan(text: string): { plan: PlanNode; planning?: number; execution?: number } | null {
  try {
    const v = JSON.parse(text)
    const top = Array.isArray(v) ? v[0] : v
    if (!top?.Plan) return null
    return { plan: top.Plan, planning: top['Planning Time'], execution: top['Execution Time'] }
  } catch {
    return null
  }
}

function Node({ n, depth }: { n: PlanNode; depth: number }) {
  const rel = n['Relation Name'] ? ` on ${n['Schema'] ? `${n['Schema']}.` : ''}${n['Relation Name']}` : ''
  const idx = n['Index Name'] ? ` using ${n['Index Name']}` : ''
  const actual = n['Actual Total Time'] !== undefined ? `${n['Actual Rows']} rows in ${Number(n['Actual Total Time']).toFixed(3)} ms × ${n['Actual Loops']}` : null
  const cond = (n['Filter'] ?? n['Index Cond'] ?? n['Hash Cond'] ?? n['Join Filter']) as string | undefined
  return (
    <li>
      <div className="rounded border border-border bg-card px-2 py-1" style={{ marginLeft: depth * 18 }} data-testid="plan-node">
        <span className="font-medium">{n['Node Type']}</span>
        <span className="text-muted-foreground">
          {rel}
          {idx}
        </span>
        <div className="text-[11px] text-muted-foreground">
          cost {String(n['Startup Cost'])}..{String(n['Total Cost'])} · est. {String(n['Plan Rows'])} rows{actual ? ` · actual ${actual}` : ''}
          {cond ? ` · ${cond}` : ''}
        </div>
      </div>
      {n.Plans && (
        <ul className="mt-1 flex flex-col gap-1">
          {n.Plans.map((c, i) => (
            <Node key={i} n={c} depth={depth + 1} />
          ))}
        </ul>
      )}
    </li>
  )
}

/** ExplainTree draws a plan. */
export function ExplainTree({ text }: { text: string }) {
  const p = parsePlan(text)
  if (!p) return <pre className="font-mono text-xs">{text}</pre>
  return (
    <div className="flex flex-col gap-2 text-xs" data-testid="explain-tree">
      {(p.planning !== undefined || p.execution !== undefined) && (
        <div className="text-muted-foreground">
          {p.planning !== undefined && `planning ${p.planning.toFixed(3)} ms`} {p.execution !== undefined && `· execution ${p.execution.toFixed(3)} ms`}
        </div>
      )}
      <ul className="flex flex-col gap-1">
        <Node n={p.plan} depth={0} />
      </ul>
    </div>
  )
}
