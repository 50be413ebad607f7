package gentypes

// jsonType is what json and jsonb columns hold.
const jsonType = `export type Json =
  | string
  | number
  | boolean
  | null
  | { [key: string]: Json | undefined }
  | Json[]
`

// helperTypes pick a table's Row, Insert or Update, an enum or a composite
// type by name, in the default schema ("public") or another one.
const helperTypes = `type DatabaseWithoutInternals = Omit<Database, "__InternalSupabase">

type DefaultSchema = DatabaseWithoutInternals[Extract<keyof Database, "public">]

// A schema other than the default one: Tables<{ schema: "other" }, "name">.
type SchemaChoice = { schema: keyof DatabaseWithoutInternals }

type Chosen<C extends SchemaChoice> = DatabaseWithoutInternals[C["schema"]]

// Row of a table or view.
export type Tables<
  NameOrSchema extends
    keyof (DefaultSchema["Tables"] & DefaultSchema["Views"]) | SchemaChoice,
  Name extends (NameOrSchema extends SchemaChoice
    ? keyof (Chosen<NameOrSchema>["Tables"] & Chosen<NameOrSchema>["Views"])
    : never) = never,
> = NameOrSchema extends SchemaChoice
  ? (Chosen<NameOrSchema>["Tables"] &
      Chosen<NameOrSchema>["Views"])[Name] extends { Row: infer R }
    ? R
    : never
  : NameOrSchema extends keyof (DefaultSchema["Tables"] &
        DefaultSchema["Views"])
    ? (DefaultSchema["Tables"] & DefaultSchema["Views"])[NameOrSchema] extends {
        Row: infer R
      }
      ? R
      : never
    : never

// What insert() takes for a table.
export type TablesInsert<
  NameOrSchema extends keyof DefaultSchema["Tables"] | SchemaChoice,
  Name extends (NameOrSchema extends SchemaChoice
    ? keyof Chosen<NameOrSchema>["Tables"]
    : never) = never,
> = NameOrSchema extends SchemaChoice
  ? Chosen<NameOrSchema>["Tables"][Name] extends { Insert: infer I }
    ? I
    : never
  : NameOrSchema extends keyof DefaultSchema["Tables"]
    ? DefaultSchema["Tables"][NameOrSchema] extends { Insert: infer I }
      ? I
      : never
    : never

// What update() takes for a table.
export type TablesUpdate<
  NameOrSchema extends keyof DefaultSchema["Tables"] | SchemaChoice,
  Name extends (NameOrSchema extends SchemaChoice
    ? keyof Chosen<NameOrSchema>["Tables"]
    : never) = never,
> = NameOrSchema extends SchemaChoice
  ? Chosen<NameOrSchema>["Tables"][Name] extends { Update: infer U }
    ? U
    : never
  : NameOrSchema extends keyof DefaultSchema["Tables"]
    ? DefaultSchema["Tables"][NameOrSchema] extends { Update: infer U }
      ? U
      : never
    : never

// The labels of an enum.
export type Enums<
  NameOrSchema extends keyof DefaultSchema["Enums"] | SchemaChoice,
  Name extends (NameOrSchema extends SchemaChoice
    ? keyof Chosen<NameOrSchema>["Enums"]
    : never) = never,
> = NameOrSchema extends SchemaChoice
  ? Chosen<NameOrSchema>["Enums"][Name]
  : NameOrSchema extends keyof DefaultSchema["Enums"]
    ? DefaultSchema["Enums"][NameOrSchema]
    : never

// The fields of a composite type.
export type CompositeTypes<
  NameOrSchema extends keyof DefaultSchema["CompositeTypes"] | SchemaChoice,
  Name extends (NameOrSchema extends SchemaChoice
    ? keyof Chosen<NameOrSchema>["CompositeTypes"]
    : never) = never,
> = NameOrSchema extends SchemaChoice
  ? Chosen<NameOrSchema>["CompositeTypes"][Name]
  : NameOrSchema extends keyof DefaultSchema["CompositeTypes"]
    ? DefaultSchema["CompositeTypes"][NameOrSchema]
    : never
`
