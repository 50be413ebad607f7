// Type-level checks of the generated files against supabase-js: compiled
// with tsc --noEmit by TestTypeScriptCompiles. A wrong shape is a compile
// error; so is an @ts-expect-error line that no longer errors.
import { createClient } from "@supabase/supabase-js"
import {
  Constants,
  type CompositeTypes,
  type Database,
  type Enums,
  type Tables,
  type TablesInsert,
  type TablesUpdate,
} from "./public"
import type { Database as TwoSchemas, Tables as TwoTables } from "./two_schemas"

type Equal<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false
function expect<T extends true>(): T | void {}

const sb = createClient<Database>("http://127.0.0.1:54321", "anon")

export async function tables() {
  const { data: user } = await sb.from("users").select("id, name, status, tags, settings").single()
  if (user) {
    expect<Equal<typeof user.id, number>>()
    expect<Equal<typeof user.name, string | null>>()
    expect<Equal<typeof user.status, "draft" | "published" | "archived">>()
    expect<Equal<typeof user.tags, string[]>>()
  }
  // Many-to-one through a named foreign key: an object.
  const { data: posts } = await sb.from("posts").select("id, writer:users!posts_author_id_fkey(name)")
  if (posts) {
    expect<Equal<(typeof posts)[number]["writer"], { name: string | null }>>()
  }
  // One-to-many: an array.
  const { data: withComments } = await sb.from("posts").select("id, comments(body)")
  if (withComments) {
    expect<Equal<(typeof withComments)[number]["comments"], { body: string }[]>>()
  }
  // One-to-one (profiles.user_id is the primary key): an object from either side.
  const { data: withProfile } = await sb.from("users").select("id, profiles(bio)").single()
  if (withProfile) {
    expect<Equal<typeof withProfile.profiles, { bio: string | null } | null>>()
  }
  // A view's relationships come from its base table's keys.
  const { data: active } = await sb.from("active_posts").select("title, users(name)")
  if (active) {
    expect<Equal<(typeof active)[number]["users"], { name: string | null } | null>>()
  }
  await sb.from("posts").insert({ author_id: 1, title: "t" })
  // @ts-expect-error an identity GENERATED ALWAYS cannot be written
  await sb.from("posts").insert({ id: 1, author_id: 1, title: "t" })
  // @ts-expect-error title is required
  await sb.from("posts").insert({ author_id: 1 })
  await sb.from("active_posts").update({ title: "x" }).eq("post_id", 1)
  // @ts-expect-error a computed view column cannot be written
  await sb.from("active_posts").update({ shout: "x" }).eq("post_id", 1)
  // @ts-expect-error a view that is not updatable has no Insert
  await sb.from("post_counts").insert({ author_id: 1 })
}

export async function functions() {
  const { data: sum } = await sb.rpc("add", { a: 1 })
  expect<Equal<typeof sum, number | null>>()
  // @ts-expect-error a has no default
  await sb.rpc("add", { b: 1 })
  const { data: found } = await sb.rpc("search", { q: "x" })
  if (found) {
    expect<Equal<typeof found, { id: number; rank: number; title: string }[]>>()
  }
  // SETOF with ROWS 1: one row in the type, still an array on the wire.
  const { data: latest } = await sb.rpc("latest_post", { uid: 1 })
  if (latest) {
    expect<Equal<(typeof latest)[number]["title"], string>>()
  }
  const { data: mine } = await sb.rpc("user_posts", { uid: 1 }).select("id")
  if (mine) {
    expect<Equal<typeof mine, { id: number }[]>>()
  }
  const { data: states } = await sb.rpc("statuses")
  if (states) {
    expect<Equal<typeof states, ("draft" | "published" | "archived")[]>>()
  }
  const { data: echoed } = await sb.rpc("echo", { "": { a: 1 } })
  expect<Equal<typeof echoed, Database["public"]["Functions"]["echo"]["Returns"] | null>>()
}

export function helpers() {
  const row: Tables<"users"> = {} as Tables<"users">
  expect<Equal<typeof row.post_count, number | null>>()
  const view: Tables<"user_names"> = { id: 1, name: null, same_id: 1 }
  const insert: TablesInsert<"users"> = { email: "a@example.com", raw: {}, karma: 1 }
  const update: TablesUpdate<"posts"> = { title: "t" }
  const status: Enums<"status"> = "draft"
  const address: CompositeTypes<"address"> = { street: null, tags: null, state: "draft", extra: null }
  const labels: readonly ("draft" | "published" | "archived")[] = Constants.public.Enums.status
  expect<Equal<(typeof Constants.public.Enums.status)[0], "draft">>()
  // @ts-expect-error not a label
  const wrong: Enums<"status"> = "deleted"
  return [row, view, insert, update, status, address, labels, wrong]
}

export async function otherSchema() {
  const two = createClient<TwoSchemas>("http://127.0.0.1:54321", "anon")
  const { data } = await two.schema("extra").from("audit").select("priority, state").single()
  if (data) {
    expect<Equal<typeof data.priority, "p1" | "p2">>()
    expect<Equal<typeof data.state, "draft" | "published" | "archived" | null>>()
  }
  const audit: TwoTables<{ schema: "extra" }, "audit"> = { id: 1, priority: "p1", state: null, user_id: null }
  // In the file generated for public alone, extra's enum is spelled out.
  const level: Tables<"users">["level"] = "high"
  return [audit, level]
}
