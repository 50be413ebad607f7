export type Json =
  | string
  | number
  | boolean
  | null
  | { [key: string]: Json | undefined }
  | Json[]

export type Database = {
  // Tells supabase-js which PostgREST release the API follows.
  __InternalSupabase: {
    PostgrestVersion: "14"
  }
  public: {
    Tables: {
      comment_flags: {
        Row: {
          post_id: number
          reason: string | null
          seq: number
        }
        Insert: {
          post_id: number
          reason?: string | null
          seq: number
        }
        Update: {
          post_id?: number
          reason?: string | null
          seq?: number
        }
        Relationships: [
          {
            foreignKeyName: "comment_flags_post_id_seq_fkey"
            columns: ["post_id", "seq"]
            isOneToOne: true
            referencedRelation: "comments"
            referencedColumns: ["post_id", "seq"]
          },
        ]
      }
      comments: {
        Row: {
          body: string
          post_id: number
          seq: number
        }
        Insert: {
          body: string
          post_id: number
          seq: number
        }
        Update: {
          body?: string
          post_id?: number
          seq?: number
        }
        Relationships: [
          {
            foreignKeyName: "comments_post_fkey"
            columns: ["post_id"]
            isOneToOne: false
            referencedRelation: "active_posts"
            referencedColumns: ["post_id"]
          },
          {
            foreignKeyName: "comments_post_fkey"
            columns: ["post_id"]
            isOneToOne: false
            referencedRelation: "posts"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "comments_post_fkey"
            columns: ["post_id"]
            isOneToOne: false
            referencedRelation: "recent_active"
            referencedColumns: ["post_id"]
          },
        ]
      }
      empty: {
        Row: {}
        Insert: {}
        Update: {}
        Relationships: []
      }
      layout: {
        Row: {
          a_first_rather_long_column_name: number
          a_second_rather_long_column_name: number
          genres: Database["public"]["Enums"]["genre"][] | null
          quote: Database["public"]["Enums"]["quoted"] | null
          shape:
            | Database["public"]["CompositeTypes"]["a_rather_long_composite_type_name_for_layout"]
            | null
        }
        Insert: {
          a_first_rather_long_column_name: number
          a_second_rather_long_column_name: number
          genres?: Database["public"]["Enums"]["genre"][] | null
          quote?: Database["public"]["Enums"]["quoted"] | null
          shape?:
            | Database["public"]["CompositeTypes"]["a_rather_long_composite_type_name_for_layout"]
            | null
        }
        Update: {
          a_first_rather_long_column_name?: number
          a_second_rather_long_column_name?: number
          genres?: Database["public"]["Enums"]["genre"][] | null
          quote?: Database["public"]["Enums"]["quoted"] | null
          shape?:
            | Database["public"]["CompositeTypes"]["a_rather_long_composite_type_name_for_layout"]
            | null
        }
        Relationships: []
      }
      layout_refs: {
        Row: {
          a_first_rather_long_column_name: number
          a_second_rather_long_column_name: number
          id: number
        }
        Insert: {
          a_first_rather_long_column_name: number
          a_second_rather_long_column_name: number
          id?: number
        }
        Update: {
          a_first_rather_long_column_name?: number
          a_second_rather_long_column_name?: number
          id?: number
        }
        Relationships: [
          {
            foreignKeyName: "layout_refs_a_first_rather_long_column_name_a_second_rathe_fkey"
            columns: [
              "a_first_rather_long_column_name",
              "a_second_rather_long_column_name",
            ]
            isOneToOne: false
            referencedRelation: "layout"
            referencedColumns: [
              "a_first_rather_long_column_name",
              "a_second_rather_long_column_name",
            ]
          },
        ]
      }
      posts: {
        Row: {
          author_id: number
          body: string | null
          created_at: string | null
          editor_id: number | null
          id: number
          price: Database["public"]["CompositeTypes"]["money_pair"] | null
          state: Database["public"]["Enums"]["status"] | null
          title: string
          author: {
            avatar: string | null
            balance: number
            birthday: string | null
            created_at: string
            "display-name": string | null
            email: string
            external_id: string | null
            home: Database["public"]["CompositeTypes"]["address"] | null
            id: number
            ip: unknown
            karma: number
            level: "low" | "high" | null
            name: string | null
            ratio: number | null
            raw: Json
            scores: number[] | null
            settings: Json | null
            status: Database["public"]["Enums"]["status"]
            tags: string[]
            wake_up: string | null
          } | null
        }
        Insert: {
          author_id: number
          body?: string | null
          created_at?: string | null
          editor_id?: number | null
          id?: never
          price?: Database["public"]["CompositeTypes"]["money_pair"] | null
          state?: Database["public"]["Enums"]["status"] | null
          title: string
        }
        Update: {
          author_id?: number
          body?: string | null
          created_at?: string | null
          editor_id?: number | null
          id?: never
          price?: Database["public"]["CompositeTypes"]["money_pair"] | null
          state?: Database["public"]["Enums"]["status"] | null
          title?: string
        }
        Relationships: [
          {
            foreignKeyName: "posts_author_id_fkey"
            columns: ["author_id"]
            isOneToOne: false
            referencedRelation: "user_names"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "posts_author_id_fkey"
            columns: ["author_id"]
            isOneToOne: false
            referencedRelation: "user_names"
            referencedColumns: ["same_id"]
          },
          {
            foreignKeyName: "posts_author_id_fkey"
            columns: ["author_id"]
            isOneToOne: false
            referencedRelation: "user_stats"
            referencedColumns: ["user_id"]
          },
          {
            foreignKeyName: "posts_author_id_fkey"
            columns: ["author_id"]
            isOneToOne: false
            referencedRelation: "users"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "posts_editor_id_fkey"
            columns: ["editor_id"]
            isOneToOne: false
            referencedRelation: "user_names"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "posts_editor_id_fkey"
            columns: ["editor_id"]
            isOneToOne: false
            referencedRelation: "user_names"
            referencedColumns: ["same_id"]
          },
          {
            foreignKeyName: "posts_editor_id_fkey"
            columns: ["editor_id"]
            isOneToOne: false
            referencedRelation: "user_stats"
            referencedColumns: ["user_id"]
          },
          {
            foreignKeyName: "posts_editor_id_fkey"
            columns: ["editor_id"]
            isOneToOne: false
            referencedRelation: "users"
            referencedColumns: ["id"]
          },
        ]
      }
      profiles: {
        Row: {
          bio: string | null
          name_upper: string | null
          user_id: number
        }
        Insert: {
          bio?: string | null
          name_upper?: string | null
          user_id: number
        }
        Update: {
          bio?: string | null
          name_upper?: string | null
          user_id?: number
        }
        Relationships: [
          {
            foreignKeyName: "profiles_user_id_fkey"
            columns: ["user_id"]
            isOneToOne: true
            referencedRelation: "user_names"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "profiles_user_id_fkey"
            columns: ["user_id"]
            isOneToOne: true
            referencedRelation: "user_names"
            referencedColumns: ["same_id"]
          },
          {
            foreignKeyName: "profiles_user_id_fkey"
            columns: ["user_id"]
            isOneToOne: true
            referencedRelation: "user_stats"
            referencedColumns: ["user_id"]
          },
          {
            foreignKeyName: "profiles_user_id_fkey"
            columns: ["user_id"]
            isOneToOne: true
            referencedRelation: "users"
            referencedColumns: ["id"]
          },
        ]
      }
      users: {
        Row: {
          avatar: string | null
          balance: number
          birthday: string | null
          created_at: string
          "display-name": string | null
          email: string
          external_id: string | null
          home: Database["public"]["CompositeTypes"]["address"] | null
          id: number
          ip: unknown
          karma: number
          level: "low" | "high" | null
          name: string | null
          ratio: number | null
          raw: Json
          scores: number[] | null
          settings: Json | null
          status: Database["public"]["Enums"]["status"]
          tags: string[]
          wake_up: string | null
          post_count: number | null
        }
        Insert: {
          avatar?: string | null
          balance?: number
          birthday?: string | null
          created_at?: string
          "display-name"?: string | null
          email: string
          external_id?: string | null
          home?: Database["public"]["CompositeTypes"]["address"] | null
          id?: number
          ip?: unknown
          karma: number
          level?: "low" | "high" | null
          name?: string | null
          ratio?: number | null
          raw: Json
          scores?: number[] | null
          settings?: Json | null
          status?: Database["public"]["Enums"]["status"]
          tags?: string[]
          wake_up?: string | null
        }
        Update: {
          avatar?: string | null
          balance?: number
          birthday?: string | null
          created_at?: string
          "display-name"?: string | null
          email?: string
          external_id?: string | null
          home?: Database["public"]["CompositeTypes"]["address"] | null
          id?: number
          ip?: unknown
          karma?: number
          level?: "low" | "high" | null
          name?: string | null
          ratio?: number | null
          raw?: Json
          scores?: number[] | null
          settings?: Json | null
          status?: Database["public"]["Enums"]["status"]
          tags?: string[]
          wake_up?: string | null
        }
        Relationships: []
      }
    }
    Views: {
      active_posts: {
        Row: {
          post_id: number | null
          shout: string | null
          title: string | null
          writer: number | null
        }
        Insert: {
          post_id?: number | null
          shout?: never
          title?: string | null
          writer?: number | null
        }
        Update: {
          post_id?: number | null
          shout?: never
          title?: string | null
          writer?: number | null
        }
        Relationships: [
          {
            foreignKeyName: "posts_author_id_fkey"
            columns: ["writer"]
            isOneToOne: false
            referencedRelation: "user_names"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "posts_author_id_fkey"
            columns: ["writer"]
            isOneToOne: false
            referencedRelation: "user_names"
            referencedColumns: ["same_id"]
          },
          {
            foreignKeyName: "posts_author_id_fkey"
            columns: ["writer"]
            isOneToOne: false
            referencedRelation: "user_stats"
            referencedColumns: ["user_id"]
          },
          {
            foreignKeyName: "posts_author_id_fkey"
            columns: ["writer"]
            isOneToOne: false
            referencedRelation: "users"
            referencedColumns: ["id"]
          },
        ]
      }
      post_counts: {
        Row: {
          author_id: number | null
          n: number | null
        }
        Relationships: [
          {
            foreignKeyName: "posts_author_id_fkey"
            columns: ["author_id"]
            isOneToOne: false
            referencedRelation: "user_names"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "posts_author_id_fkey"
            columns: ["author_id"]
            isOneToOne: false
            referencedRelation: "user_names"
            referencedColumns: ["same_id"]
          },
          {
            foreignKeyName: "posts_author_id_fkey"
            columns: ["author_id"]
            isOneToOne: false
            referencedRelation: "user_stats"
            referencedColumns: ["user_id"]
          },
          {
            foreignKeyName: "posts_author_id_fkey"
            columns: ["author_id"]
            isOneToOne: false
            referencedRelation: "users"
            referencedColumns: ["id"]
          },
        ]
      }
      recent_active: {
        Row: {
          post_id: number | null
          writer: number | null
        }
        Insert: {
          post_id?: number | null
          writer?: number | null
        }
        Update: {
          post_id?: number | null
          writer?: number | null
        }
        Relationships: [
          {
            foreignKeyName: "posts_author_id_fkey"
            columns: ["writer"]
            isOneToOne: false
            referencedRelation: "user_names"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "posts_author_id_fkey"
            columns: ["writer"]
            isOneToOne: false
            referencedRelation: "user_names"
            referencedColumns: ["same_id"]
          },
          {
            foreignKeyName: "posts_author_id_fkey"
            columns: ["writer"]
            isOneToOne: false
            referencedRelation: "user_stats"
            referencedColumns: ["user_id"]
          },
          {
            foreignKeyName: "posts_author_id_fkey"
            columns: ["writer"]
            isOneToOne: false
            referencedRelation: "users"
            referencedColumns: ["id"]
          },
        ]
      }
      user_names: {
        Row: {
          id: number | null
          name: string | null
          same_id: number | null
        }
        Insert: {
          id?: number | null
          name?: string | null
          same_id?: number | null
        }
        Update: {
          id?: number | null
          name?: string | null
          same_id?: number | null
        }
        Relationships: []
      }
      user_stats: {
        Row: {
          posts: number | null
          user_id: number | null
        }
        Relationships: []
      }
    }
    Functions: {
      add: { Args: { a: number; b?: number }; Returns: number }
      any_rows: { Args: never; Returns: Record<string, unknown>[] }
      author: {
        Args: { "": Database["public"]["Tables"]["posts"]["Row"] }
        Returns: {
          avatar: string | null
          balance: number
          birthday: string | null
          created_at: string
          "display-name": string | null
          email: string
          external_id: string | null
          home: Database["public"]["CompositeTypes"]["address"] | null
          id: number
          ip: unknown
          karma: number
          level: "low" | "high" | null
          name: string | null
          ratio: number | null
          raw: Json
          scores: number[] | null
          settings: Json | null
          status: Database["public"]["Enums"]["status"]
          tags: string[]
          wake_up: string | null
        }
        SetofOptions: {
          from: "posts"
          to: "users"
          isOneToOne: true
          isSetofReturn: true
        }
      }
      echo: { Args: { "": Json }; Returns: Json }
      find:
        | {
            Args: { email: string }
            Returns: {
              avatar: string | null
              balance: number
              birthday: string | null
              created_at: string
              "display-name": string | null
              email: string
              external_id: string | null
              home: Database["public"]["CompositeTypes"]["address"] | null
              id: number
              ip: unknown
              karma: number
              level: "low" | "high" | null
              name: string | null
              ratio: number | null
              raw: Json
              scores: number[] | null
              settings: Json | null
              status: Database["public"]["Enums"]["status"]
              tags: string[]
              wake_up: string | null
            }
            SetofOptions: {
              from: "*"
              to: "users"
              isOneToOne: true
              isSetofReturn: false
            }
          }
        | {
            Args: { id: number }
            Returns: {
              avatar: string | null
              balance: number
              birthday: string | null
              created_at: string
              "display-name": string | null
              email: string
              external_id: string | null
              home: Database["public"]["CompositeTypes"]["address"] | null
              id: number
              ip: unknown
              karma: number
              level: "low" | "high" | null
              name: string | null
              ratio: number | null
              raw: Json
              scores: number[] | null
              settings: Json | null
              status: Database["public"]["Enums"]["status"]
              tags: string[]
              wake_up: string | null
            }
            SetofOptions: {
              from: "*"
              to: "users"
              isOneToOne: true
              isSetofReturn: false
            }
          }
      first_user: {
        Args: never
        Returns: {
          avatar: string | null
          balance: number
          birthday: string | null
          created_at: string
          "display-name": string | null
          email: string
          external_id: string | null
          home: Database["public"]["CompositeTypes"]["address"] | null
          id: number
          ip: unknown
          karma: number
          level: "low" | "high" | null
          name: string | null
          ratio: number | null
          raw: Json
          scores: number[] | null
          settings: Json | null
          status: Database["public"]["Enums"]["status"]
          tags: string[]
          wake_up: string | null
        }
        SetofOptions: {
          from: "*"
          to: "users"
          isOneToOne: true
          isSetofReturn: false
        }
      }
      latest_post: {
        Args: { uid: number }
        Returns: {
          author_id: number
          body: string | null
          created_at: string | null
          editor_id: number | null
          id: number
          price: Database["public"]["CompositeTypes"]["money_pair"] | null
          state: Database["public"]["Enums"]["status"] | null
          title: string
        }
        SetofOptions: {
          from: "*"
          to: "posts"
          isOneToOne: true
          isSetofReturn: true
        }
      }
      level_of: { Args: { uid: number }; Returns: "low" | "high" }
      long_args: {
        Args: {
          first_argument: string
          second_argument: number
          third_argument?: boolean
        }
        Returns: Database["public"]["Enums"]["genre"]
      }
      mail_domain: { Args: { address: unknown }; Returns: string }
      make_pair: {
        Args: { amount: number }
        Returns: Database["public"]["CompositeTypes"]["money_pair"]
        SetofOptions: {
          from: "*"
          to: "money_pair"
          isOneToOne: true
          isSetofReturn: false
        }
      }
      maybe:
        | {
            Args: never
            Returns: {
              error: true
            } & "Could not choose the best candidate function between: public.maybe(), public.maybe( => text). Try renaming the parameters or the function itself in the database so function overloading can be resolved"
          }
        | { Args: { ""?: string }; Returns: string }
      pair: { Args: never; Returns: Record<string, unknown> }
      pick:
        | {
            Args: { x: number }
            Returns: {
              error: true
            } & "Could not choose the best candidate function between: public.pick(x => int4), public.pick(x => text). Try renaming the parameters or the function itself in the database so function overloading can be resolved"
          }
        | {
            Args: { x: string }
            Returns: {
              error: true
            } & "Could not choose the best candidate function between: public.pick(x => int4), public.pick(x => text). Try renaming the parameters or the function itself in the database so function overloading can be resolved"
          }
      ping: { Args: never; Returns: undefined }
      post_count: {
        Args: { "": Database["public"]["Tables"]["users"]["Row"] }
        Returns: {
          error: true
        } & "the function public.post_count with parameter or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache"
      }
      search: {
        Args: { lim?: number; q: string }
        Returns: {
          id: number
          rank: number
          title: string
        }[]
      }
      statuses: {
        Args: never
        Returns: Database["public"]["Enums"]["status"][]
      }
      tag_list: { Args: { extra: string[]; tags: string[] }; Returns: string[] }
      user_posts: {
        Args: { uid: number }
        Returns: {
          author_id: number
          body: string | null
          created_at: string | null
          editor_id: number | null
          id: number
          price: Database["public"]["CompositeTypes"]["money_pair"] | null
          state: Database["public"]["Enums"]["status"] | null
          title: string
        }[]
        SetofOptions: {
          from: "*"
          to: "posts"
          isOneToOne: false
          isSetofReturn: true
        }
      }
    }
    Enums: {
      genre:
        | "afrobeats"
        | "amapiano"
        | "highlife"
        | "hiphop"
        | "gospel"
        | "jazz"
        | "reggae"
        | "fuji"
      one_label: "only"
      quoted: 'say "hi"' | "it's" | "back\\slash"
      status: "draft" | "published" | "archived"
    }
    CompositeTypes: {
      a_rather_long_composite_type_name_for_layout: {
        x: number | null
      }
      address: {
        street: string | null
        tags: string[] | null
        state: Database["public"]["Enums"]["status"] | null
        extra: Json | null
      }
      money_pair: {
        amount: number | null
        currency: string | null
      }
    }
  }
}

type DatabaseWithoutInternals = Omit<Database, "__InternalSupabase">

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

export const Constants = {
  public: {
    Enums: {
      genre: [
        "afrobeats",
        "amapiano",
        "highlife",
        "hiphop",
        "gospel",
        "jazz",
        "reggae",
        "fuji",
      ],
      one_label: ["only"],
      quoted: ['say "hi"', "it's", "back\\slash"],
      status: ["draft", "published", "archived"],
    },
  },
} as const
