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
      activity_log: {
        Row: {
          action: string
          actor_id: string | null
          created_at: string
          details: Json
          entity_id: string | null
          entity_type: string | null
          id: number
          ip_address: string | null
        }
        Insert: {
          action: string
          actor_id?: string | null
          created_at?: string
          details?: Json
          entity_id?: string | null
          entity_type?: string | null
          id?: number
          ip_address?: string | null
        }
        Update: {
          action?: string
          actor_id?: string | null
          created_at?: string
          details?: Json
          entity_id?: string | null
          entity_type?: string | null
          id?: number
          ip_address?: string | null
        }
        Relationships: []
      }
      admin_audit_log: {
        Row: {
          action: string
          actor_id: string
          after: Json | null
          before: Json | null
          created_at: string
          id: number
          ip_address: string | null
          reason: string | null
          target_id: string
          target_type: string
        }
        Insert: {
          action: string
          actor_id: string
          after?: Json | null
          before?: Json | null
          created_at?: string
          id?: never
          ip_address?: string | null
          reason?: string | null
          target_id: string
          target_type: string
        }
        Update: {
          action?: string
          actor_id?: string
          after?: Json | null
          before?: Json | null
          created_at?: string
          id?: never
          ip_address?: string | null
          reason?: string | null
          target_id?: string
          target_type?: string
        }
        Relationships: []
      }
      app_settings: {
        Row: {
          description: string
          is_public: boolean
          key: string
          updated_at: string
          value: Json
        }
        Insert: {
          description?: string
          is_public?: boolean
          key: string
          updated_at?: string
          value: Json
        }
        Update: {
          description?: string
          is_public?: boolean
          key?: string
          updated_at?: string
          value?: Json
        }
        Relationships: []
      }
      artist_profiles: {
        Row: {
          avatar_url: string | null
          bio: string | null
          created_at: string
          follower_count: number
          genres: string[]
          id: string
          kyc_expiry_date: string | null
          kyc_status: string
          location: string | null
          name: string
          phone: string | null
          search_name: string | null
          stream_count: number
          track_count: number
          updated_at: string
        }
        Insert: {
          avatar_url?: string | null
          bio?: string | null
          created_at?: string
          follower_count?: number
          genres?: string[]
          id: string
          kyc_expiry_date?: string | null
          kyc_status?: string
          location?: string | null
          name?: string
          phone?: string | null
          search_name?: string | null
          stream_count?: number
          track_count?: number
          updated_at?: string
        }
        Update: {
          avatar_url?: string | null
          bio?: string | null
          created_at?: string
          follower_count?: number
          genres?: string[]
          id?: string
          kyc_expiry_date?: string | null
          kyc_status?: string
          location?: string | null
          name?: string
          phone?: string | null
          search_name?: string | null
          stream_count?: number
          track_count?: number
          updated_at?: string
        }
        Relationships: [
          {
            foreignKeyName: "artist_profiles_id_fkey"
            columns: ["id"]
            isOneToOne: true
            referencedRelation: "public_profiles"
            referencedColumns: ["id"]
          },
        ]
      }
      banks: {
        Row: {
          code: string
          name: string
        }
        Insert: {
          code: string
          name: string
        }
        Update: {
          code?: string
          name?: string
        }
        Relationships: []
      }
      cashout_requests: {
        Row: {
          account_name: string | null
          account_number: string | null
          amount: number
          bank_name: string | null
          created_at: string
          hold_transaction_id: string | null
          id: string
          processed_at: string | null
          processed_by: string | null
          reason: string | null
          settle_transaction_id: string | null
          status: string
          user_id: string
        }
        Insert: {
          account_name?: string | null
          account_number?: string | null
          amount: number
          bank_name?: string | null
          created_at?: string
          hold_transaction_id?: string | null
          id?: string
          processed_at?: string | null
          processed_by?: string | null
          reason?: string | null
          settle_transaction_id?: string | null
          status?: string
          user_id: string
        }
        Update: {
          account_name?: string | null
          account_number?: string | null
          amount?: number
          bank_name?: string | null
          created_at?: string
          hold_transaction_id?: string | null
          id?: string
          processed_at?: string | null
          processed_by?: string | null
          reason?: string | null
          settle_transaction_id?: string | null
          status?: string
          user_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "cashout_requests_hold_transaction_id_fkey"
            columns: ["hold_transaction_id"]
            isOneToOne: false
            referencedRelation: "transactions"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "cashout_requests_settle_transaction_id_fkey"
            columns: ["settle_transaction_id"]
            isOneToOne: false
            referencedRelation: "transactions"
            referencedColumns: ["id"]
          },
        ]
      }
      daily_stream_limits: {
        Row: {
          created_at: string
          daily_limit: number
          limit_date: string
          streams_remaining: number | null
          streams_used: number
          updated_at: string
          user_id: string
        }
        Insert: {
          created_at?: string
          daily_limit: number
          limit_date: string
          streams_remaining?: number | null
          streams_used?: number
          updated_at?: string
          user_id: string
        }
        Update: {
          created_at?: string
          daily_limit?: number
          limit_date?: string
          streams_remaining?: number | null
          streams_used?: number
          updated_at?: string
          user_id?: string
        }
        Relationships: []
      }
      device_fingerprints: {
        Row: {
          details: Json
          fingerprint: string
          first_seen: string
          id: string
          ip_address: string | null
          language: string | null
          last_seen: string
          platform: string | null
          screen_resolution: string | null
          seen_count: number
          timezone: string | null
          trust_score: number
          user_agent: string | null
          user_id: string
        }
        Insert: {
          details?: Json
          fingerprint: string
          first_seen?: string
          id?: string
          ip_address?: string | null
          language?: string | null
          last_seen?: string
          platform?: string | null
          screen_resolution?: string | null
          seen_count?: number
          timezone?: string | null
          trust_score?: number
          user_agent?: string | null
          user_id: string
        }
        Update: {
          details?: Json
          fingerprint?: string
          first_seen?: string
          id?: string
          ip_address?: string | null
          language?: string | null
          last_seen?: string
          platform?: string | null
          screen_resolution?: string | null
          seen_count?: number
          timezone?: string | null
          trust_score?: number
          user_agent?: string | null
          user_id?: string
        }
        Relationships: []
      }
      early_access_subscribers: {
        Row: {
          created_at: string
          email: string
          id: string
          role: string
        }
        Insert: {
          created_at?: string
          email: string
          id?: string
          role: string
        }
        Update: {
          created_at?: string
          email?: string
          id?: string
          role?: string
        }
        Relationships: []
      }
      fan_profiles: {
        Row: {
          created_at: string
          id: string
          phone: string | null
          updated_at: string
        }
        Insert: {
          created_at?: string
          id: string
          phone?: string | null
          updated_at?: string
        }
        Update: {
          created_at?: string
          id?: string
          phone?: string | null
          updated_at?: string
        }
        Relationships: [
          {
            foreignKeyName: "fan_profiles_id_fkey"
            columns: ["id"]
            isOneToOne: true
            referencedRelation: "public_profiles"
            referencedColumns: ["id"]
          },
        ]
      }
      favorites: {
        Row: {
          created_at: string
          id: string
          track_id: string
          user_id: string
        }
        Insert: {
          created_at?: string
          id?: string
          track_id: string
          user_id?: string
        }
        Update: {
          created_at?: string
          id?: string
          track_id?: string
          user_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "favorites_track_id_fkey"
            columns: ["track_id"]
            isOneToOne: false
            referencedRelation: "tracks"
            referencedColumns: ["id"]
          },
        ]
      }
      follows: {
        Row: {
          artist_id: string
          created_at: string
          follower_id: string
        }
        Insert: {
          artist_id: string
          created_at?: string
          follower_id?: string
        }
        Update: {
          artist_id?: string
          created_at?: string
          follower_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "follows_artist_id_fkey"
            columns: ["artist_id"]
            isOneToOne: false
            referencedRelation: "artist_profiles"
            referencedColumns: ["id"]
          },
        ]
      }
      kyc_submissions: {
        Row: {
          artist_id: string
          created_at: string
          document_number: string
          document_path: string | null
          document_type: string
          expires_at: string | null
          full_name: string
          id: string
          reason: string | null
          reviewed_at: string | null
          reviewed_by: string | null
          status: string
        }
        Insert: {
          artist_id: string
          created_at?: string
          document_number: string
          document_path?: string | null
          document_type: string
          expires_at?: string | null
          full_name: string
          id?: string
          reason?: string | null
          reviewed_at?: string | null
          reviewed_by?: string | null
          status?: string
        }
        Update: {
          artist_id?: string
          created_at?: string
          document_number?: string
          document_path?: string | null
          document_type?: string
          expires_at?: string | null
          full_name?: string
          id?: string
          reason?: string | null
          reviewed_at?: string | null
          reviewed_by?: string | null
          status?: string
        }
        Relationships: [
          {
            foreignKeyName: "kyc_submissions_artist_id_fkey"
            columns: ["artist_id"]
            isOneToOne: false
            referencedRelation: "artist_profiles"
            referencedColumns: ["id"]
          },
        ]
      }
      notifications: {
        Row: {
          created_at: string
          data: Json
          id: string
          is_read: boolean
          message: string
          title: string
          type: string
          user_id: string
        }
        Insert: {
          created_at?: string
          data?: Json
          id?: string
          is_read?: boolean
          message: string
          title: string
          type: string
          user_id: string
        }
        Update: {
          created_at?: string
          data?: Json
          id?: string
          is_read?: boolean
          message?: string
          title?: string
          type?: string
          user_id?: string
        }
        Relationships: []
      }
      payments: {
        Row: {
          amount: number
          completed_at: string | null
          created_at: string
          currency: string
          fee: number
          id: string
          provider: string
          provider_status: string | null
          purpose: string
          raw_verification: Json | null
          status: string
          total: number
          transaction_id: string | null
          tx_ref: string
          user_id: string
          vat: number
        }
        Insert: {
          amount: number
          completed_at?: string | null
          created_at?: string
          currency?: string
          fee?: number
          id?: string
          provider: string
          provider_status?: string | null
          purpose: string
          raw_verification?: Json | null
          status?: string
          total: number
          transaction_id?: string | null
          tx_ref: string
          user_id: string
          vat?: number
        }
        Update: {
          amount?: number
          completed_at?: string | null
          created_at?: string
          currency?: string
          fee?: number
          id?: string
          provider?: string
          provider_status?: string | null
          purpose?: string
          raw_verification?: Json | null
          status?: string
          total?: number
          transaction_id?: string | null
          tx_ref?: string
          user_id?: string
          vat?: number
        }
        Relationships: [
          {
            foreignKeyName: "payments_transaction_id_fkey"
            columns: ["transaction_id"]
            isOneToOne: false
            referencedRelation: "transactions"
            referencedColumns: ["id"]
          },
        ]
      }
      play_sessions: {
        Row: {
          allowance_consumed: boolean
          closed_at: string | null
          id: string
          ip_address: string | null
          listened_seconds: number | null
          outcome: Json | null
          started_at: string
          stream_id: string | null
          track_id: string
          user_id: string
        }
        Insert: {
          allowance_consumed?: boolean
          closed_at?: string | null
          id?: string
          ip_address?: string | null
          listened_seconds?: number | null
          outcome?: Json | null
          started_at?: string
          stream_id?: string | null
          track_id: string
          user_id: string
        }
        Update: {
          allowance_consumed?: boolean
          closed_at?: string | null
          id?: string
          ip_address?: string | null
          listened_seconds?: number | null
          outcome?: Json | null
          started_at?: string
          stream_id?: string | null
          track_id?: string
          user_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "play_sessions_track_id_fkey"
            columns: ["track_id"]
            isOneToOne: false
            referencedRelation: "tracks"
            referencedColumns: ["id"]
          },
        ]
      }
      playlist_tracks: {
        Row: {
          added_at: string
          playlist_id: string
          position: number
          track_id: string
        }
        Insert: {
          added_at?: string
          playlist_id: string
          position?: number
          track_id: string
        }
        Update: {
          added_at?: string
          playlist_id?: string
          position?: number
          track_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "playlist_tracks_playlist_id_fkey"
            columns: ["playlist_id"]
            isOneToOne: false
            referencedRelation: "playlists"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "playlist_tracks_track_id_fkey"
            columns: ["track_id"]
            isOneToOne: false
            referencedRelation: "tracks"
            referencedColumns: ["id"]
          },
        ]
      }
      playlists: {
        Row: {
          cover_url: string | null
          created_at: string
          description: string | null
          id: string
          is_public: boolean
          name: string
          search_name: string | null
          updated_at: string
          user_id: string
        }
        Insert: {
          cover_url?: string | null
          created_at?: string
          description?: string | null
          id?: string
          is_public?: boolean
          name: string
          search_name?: string | null
          updated_at?: string
          user_id?: string
        }
        Update: {
          cover_url?: string | null
          created_at?: string
          description?: string | null
          id?: string
          is_public?: boolean
          name?: string
          search_name?: string | null
          updated_at?: string
          user_id?: string
        }
        Relationships: []
      }
      public_profiles: {
        Row: {
          avatar_url: string | null
          bio: string | null
          created_at: string
          display_name: string | null
          id: string
          is_suspended: boolean
          is_verified: boolean
          location: string | null
          name: string | null
          role: Database["public"]["Enums"]["app_role"] | null
          suspended_at: string | null
          suspended_reason: string | null
          updated_at: string
          username: string | null
          verification_expires_at: string | null
          website: string | null
        }
        Insert: {
          avatar_url?: string | null
          bio?: string | null
          created_at?: string
          display_name?: string | null
          id: string
          is_suspended?: boolean
          is_verified?: boolean
          location?: string | null
          name?: string | null
          role?: Database["public"]["Enums"]["app_role"] | null
          suspended_at?: string | null
          suspended_reason?: string | null
          updated_at?: string
          username?: string | null
          verification_expires_at?: string | null
          website?: string | null
        }
        Update: {
          avatar_url?: string | null
          bio?: string | null
          created_at?: string
          display_name?: string | null
          id?: string
          is_suspended?: boolean
          is_verified?: boolean
          location?: string | null
          name?: string | null
          role?: Database["public"]["Enums"]["app_role"] | null
          suspended_at?: string | null
          suspended_reason?: string | null
          updated_at?: string
          username?: string | null
          verification_expires_at?: string | null
          website?: string | null
        }
        Relationships: []
      }
      sponsor_artist_invites: {
        Row: {
          artist_id: string
          created_at: string
          id: string
          initiated_by: string
          pitch: string | null
          responded_at: string | null
          sponsor_id: string
          status: string
          track_id: string | null
          updated_at: string
        }
        Insert: {
          artist_id: string
          created_at?: string
          id?: string
          initiated_by?: string
          pitch?: string | null
          responded_at?: string | null
          sponsor_id: string
          status?: string
          track_id?: string | null
          updated_at?: string
        }
        Update: {
          artist_id?: string
          created_at?: string
          id?: string
          initiated_by?: string
          pitch?: string | null
          responded_at?: string | null
          sponsor_id?: string
          status?: string
          track_id?: string | null
          updated_at?: string
        }
        Relationships: [
          {
            foreignKeyName: "sponsor_artist_invites_artist_id_fkey"
            columns: ["artist_id"]
            isOneToOne: false
            referencedRelation: "artist_profiles"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "sponsor_artist_invites_sponsor_id_fkey"
            columns: ["sponsor_id"]
            isOneToOne: false
            referencedRelation: "sponsor_profiles"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "sponsor_artist_invites_track_id_fkey"
            columns: ["track_id"]
            isOneToOne: false
            referencedRelation: "tracks"
            referencedColumns: ["id"]
          },
        ]
      }
      sponsor_profiles: {
        Row: {
          avatar_url: string | null
          bio: string | null
          company_name: string | null
          created_at: string
          id: string
          name: string | null
          phone: string | null
          search_name: string | null
          updated_at: string
          website: string | null
        }
        Insert: {
          avatar_url?: string | null
          bio?: string | null
          company_name?: string | null
          created_at?: string
          id: string
          name?: string | null
          phone?: string | null
          search_name?: string | null
          updated_at?: string
          website?: string | null
        }
        Update: {
          avatar_url?: string | null
          bio?: string | null
          company_name?: string | null
          created_at?: string
          id?: string
          name?: string | null
          phone?: string | null
          search_name?: string | null
          updated_at?: string
          website?: string | null
        }
        Relationships: [
          {
            foreignKeyName: "sponsor_profiles_id_fkey"
            columns: ["id"]
            isOneToOne: true
            referencedRelation: "public_profiles"
            referencedColumns: ["id"]
          },
        ]
      }
      stream_records: {
        Row: {
          created_at: string
          device_fingerprint: string | null
          id: string
          ip_address: string | null
          session_id: string | null
          stream_duration: number | null
          track_id: string
          user_id: string
        }
        Insert: {
          created_at?: string
          device_fingerprint?: string | null
          id?: string
          ip_address?: string | null
          session_id?: string | null
          stream_duration?: number | null
          track_id: string
          user_id: string
        }
        Update: {
          created_at?: string
          device_fingerprint?: string | null
          id?: string
          ip_address?: string | null
          session_id?: string | null
          stream_duration?: number | null
          track_id?: string
          user_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "stream_records_track_id_fkey"
            columns: ["track_id"]
            isOneToOne: false
            referencedRelation: "tracks"
            referencedColumns: ["id"]
          },
        ]
      }
      stream_settlements: {
        Row: {
          artist_id: string | null
          created_at: string
          reference: string
          result: Json | null
          sponsor_id: string | null
          stream_id: string | null
          success: boolean
          user_id: string
        }
        Insert: {
          artist_id?: string | null
          created_at?: string
          reference: string
          result?: Json | null
          sponsor_id?: string | null
          stream_id?: string | null
          success?: boolean
          user_id: string
        }
        Update: {
          artist_id?: string | null
          created_at?: string
          reference?: string
          result?: Json | null
          sponsor_id?: string | null
          stream_id?: string | null
          success?: boolean
          user_id?: string
        }
        Relationships: []
      }
      streams: {
        Row: {
          created_at: string
          duration: number | null
          id: string
          invalid_reason: string | null
          ip_address: string | null
          is_valid: boolean
          paid_reference: string | null
          play_session_id: string | null
          track_id: string
          user_id: string | null
        }
        Insert: {
          created_at?: string
          duration?: number | null
          id?: string
          invalid_reason?: string | null
          ip_address?: string | null
          is_valid?: boolean
          paid_reference?: string | null
          play_session_id?: string | null
          track_id: string
          user_id?: string | null
        }
        Update: {
          created_at?: string
          duration?: number | null
          id?: string
          invalid_reason?: string | null
          ip_address?: string | null
          is_valid?: boolean
          paid_reference?: string | null
          play_session_id?: string | null
          track_id?: string
          user_id?: string | null
        }
        Relationships: [
          {
            foreignKeyName: "streams_play_session_id_fkey"
            columns: ["play_session_id"]
            isOneToOne: false
            referencedRelation: "play_sessions"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "streams_track_id_fkey"
            columns: ["track_id"]
            isOneToOne: false
            referencedRelation: "tracks"
            referencedColumns: ["id"]
          },
        ]
      }
      tracks: {
        Row: {
          artist_id: string
          audio_url: string | null
          cover_url: string | null
          created_at: string
          description: string | null
          duration: number | null
          genre: string | null
          id: string
          is_explicit: boolean
          is_sponsored: boolean
          moderated_at: string | null
          moderated_by: string | null
          moderation_reason: string | null
          release_date: string | null
          search_name: string | null
          sponsor_id: string | null
          status: string
          streams: number
          title: string
          updated_at: string
        }
        Insert: {
          artist_id: string
          audio_url?: string | null
          cover_url?: string | null
          created_at?: string
          description?: string | null
          duration?: number | null
          genre?: string | null
          id?: string
          is_explicit?: boolean
          is_sponsored?: boolean
          moderated_at?: string | null
          moderated_by?: string | null
          moderation_reason?: string | null
          release_date?: string | null
          search_name?: string | null
          sponsor_id?: string | null
          status?: string
          streams?: number
          title: string
          updated_at?: string
        }
        Update: {
          artist_id?: string
          audio_url?: string | null
          cover_url?: string | null
          created_at?: string
          description?: string | null
          duration?: number | null
          genre?: string | null
          id?: string
          is_explicit?: boolean
          is_sponsored?: boolean
          moderated_at?: string | null
          moderated_by?: string | null
          moderation_reason?: string | null
          release_date?: string | null
          search_name?: string | null
          sponsor_id?: string | null
          status?: string
          streams?: number
          title?: string
          updated_at?: string
        }
        Relationships: [
          {
            foreignKeyName: "tracks_artist_id_fkey"
            columns: ["artist_id"]
            isOneToOne: false
            referencedRelation: "artist_profiles"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "tracks_sponsor_id_fkey"
            columns: ["sponsor_id"]
            isOneToOne: false
            referencedRelation: "sponsor_profiles"
            referencedColumns: ["id"]
          },
        ]
      }
      transactions: {
        Row: {
          amount: number
          created_at: string
          from_balance_after: number
          from_wallet: string
          id: string
          kind: string
          metadata: Json
          reference: string
          stream_id: string | null
          to_balance_after: number
          to_wallet: string
          track_id: string | null
        }
        Insert: {
          amount: number
          created_at?: string
          from_balance_after: number
          from_wallet: string
          id?: string
          kind: string
          metadata?: Json
          reference: string
          stream_id?: string | null
          to_balance_after: number
          to_wallet: string
          track_id?: string | null
        }
        Update: {
          amount?: number
          created_at?: string
          from_balance_after?: number
          from_wallet?: string
          id?: string
          kind?: string
          metadata?: Json
          reference?: string
          stream_id?: string | null
          to_balance_after?: number
          to_wallet?: string
          track_id?: string | null
        }
        Relationships: [
          {
            foreignKeyName: "transactions_from_wallet_fkey"
            columns: ["from_wallet"]
            isOneToOne: false
            referencedRelation: "wallets"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "transactions_stream_id_fkey"
            columns: ["stream_id"]
            isOneToOne: true
            referencedRelation: "streams"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "transactions_to_wallet_fkey"
            columns: ["to_wallet"]
            isOneToOne: false
            referencedRelation: "wallets"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "transactions_track_id_fkey"
            columns: ["track_id"]
            isOneToOne: false
            referencedRelation: "tracks"
            referencedColumns: ["id"]
          },
        ]
      }
      user_roles: {
        Row: {
          created_at: string
          id: string
          role: Database["public"]["Enums"]["app_role"]
          user_id: string
        }
        Insert: {
          created_at?: string
          id?: string
          role: Database["public"]["Enums"]["app_role"]
          user_id: string
        }
        Update: {
          created_at?: string
          id?: string
          role?: Database["public"]["Enums"]["app_role"]
          user_id?: string
        }
        Relationships: []
      }
      user_sessions: {
        Row: {
          created_at: string
          device_info: string | null
          id: string
          ip_address: string | null
          last_seen: string
          session_id: string
          user_id: string
        }
        Insert: {
          created_at?: string
          device_info?: string | null
          id?: string
          ip_address?: string | null
          last_seen?: string
          session_id: string
          user_id: string
        }
        Update: {
          created_at?: string
          device_info?: string | null
          id?: string
          ip_address?: string | null
          last_seen?: string
          session_id?: string
          user_id?: string
        }
        Relationships: []
      }
      verifications: {
        Row: {
          expires_at: string
          granted_at: string
          id: string
          payment_id: string | null
          source: string
          user_id: string
        }
        Insert: {
          expires_at: string
          granted_at?: string
          id?: string
          payment_id?: string | null
          source?: string
          user_id: string
        }
        Update: {
          expires_at?: string
          granted_at?: string
          id?: string
          payment_id?: string | null
          source?: string
          user_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "verifications_payment_id_fkey"
            columns: ["payment_id"]
            isOneToOne: false
            referencedRelation: "payments"
            referencedColumns: ["id"]
          },
        ]
      }
      wallets: {
        Row: {
          account: string | null
          balance: number
          created_at: string
          currency: string
          id: string
          kind: string
          updated_at: string
          user_id: string | null
        }
        Insert: {
          account?: string | null
          balance?: number
          created_at?: string
          currency?: string
          id: string
          kind?: string
          updated_at?: string
          user_id?: string | null
        }
        Update: {
          account?: string | null
          balance?: number
          created_at?: string
          currency?: string
          id?: string
          kind?: string
          updated_at?: string
          user_id?: string | null
        }
        Relationships: []
      }
    }
    Views: {
      [_ in never]: never
    }
    Functions: {
      admin_activity: {
        Args: {
          p_before_at?: string
          p_before_key?: string
          p_from?: string
          p_kind?: string
          p_limit?: number
          p_to?: string
          p_user_id?: string
        }
        Returns: {
          action: string
          actor_id: string
          actor_name: string
          at: string
          details: Json
          key: string
          kind: string
          subject_id: string
          subject_type: string
        }[]
      }
      admin_adjust_wallet: {
        Args: { p_amount: number; p_reason: string; p_user_id: string }
        Returns: Json
      }
      admin_cashout_totals: { Args: { p_days?: number }; Returns: Json }
      admin_end_sponsorship: {
        Args: { p_reason: string; p_track_id: string }
        Returns: Json
      }
      admin_hide_track: {
        Args: { p_reason: string; p_track_id: string }
        Returns: Json
      }
      admin_ledger_recheck: { Args: never; Returns: Json }
      admin_ledger_summary: { Args: never; Returns: Json }
      admin_list_cashouts: {
        Args: {
          p_cursor_created?: string
          p_cursor_id?: string
          p_limit?: number
          p_status?: string
        }
        Returns: {
          account_name: string
          account_number: string
          amount: number
          bank_name: string
          created_at: string
          email: string
          id: string
          processed_at: string
          processed_by: string
          processed_by_name: string
          reason: string
          status: string
          user_id: string
          user_name: string
          wallet_balance: number
        }[]
      }
      admin_list_invites: {
        Args: {
          p_before_created?: string
          p_before_id?: string
          p_limit?: number
          p_status?: string
        }
        Returns: {
          artist_id: string
          artist_name: string
          created_at: string
          id: string
          initiated_by: string
          pitch: string
          responded_at: string
          spend_amount: number
          spend_streams: number
          sponsor_balance: number
          sponsor_id: string
          sponsor_name: string
          status: string
          track_id: string
          track_title: string
        }[]
      }
      admin_list_kyc: {
        Args: {
          p_cursor_created?: string
          p_cursor_id?: string
          p_limit?: number
          p_status?: string
        }
        Returns: {
          artist_id: string
          artist_name: string
          created_at: string
          document_number: string
          document_path: string
          document_type: string
          expires_at: string
          full_name: string
          id: string
          kyc_expiry_date: string
          kyc_status: string
          reason: string
          reviewed_at: string
          reviewed_by_name: string
          status: string
        }[]
      }
      admin_list_sponsored_tracks: {
        Args: {
          p_before_created?: string
          p_before_id?: string
          p_limit?: number
          p_sponsor_id?: string
        }
        Returns: {
          artist_id: string
          artist_name: string
          created_at: string
          last_paid_at: string
          paid_amount: number
          paid_streams: number
          sponsor_balance: number
          sponsor_id: string
          sponsor_name: string
          status: string
          streams: number
          title: string
          track_id: string
        }[]
      }
      admin_list_transactions: {
        Args: {
          p_before_created?: string
          p_before_id?: string
          p_from?: string
          p_kind?: string
          p_limit?: number
          p_reference?: string
          p_to?: string
          p_user_id?: string
        }
        Returns: {
          amount: number
          created_at: string
          from_balance_after: number
          from_name: string
          from_wallet: string
          id: string
          kind: string
          metadata: Json
          reference: string
          to_balance_after: number
          to_name: string
          to_wallet: string
          track_id: string
        }[]
      }
      admin_list_verifications: {
        Args: {
          p_before_granted?: string
          p_before_id?: string
          p_limit?: number
        }
        Returns: {
          active: boolean
          expires_at: string
          granted_at: string
          id: string
          provider: string
          role: Database["public"]["Enums"]["app_role"]
          source: string
          total: number
          tx_ref: string
          user_id: string
          user_name: string
        }[]
      }
      admin_remove_track: {
        Args: { p_reason: string; p_track_id: string }
        Returns: Json
      }
      admin_review_kyc: {
        Args: {
          p_approve: boolean
          p_expires_at?: string
          p_reason?: string
          p_submission_id: string
        }
        Returns: Json
      }
      admin_search_tracks: {
        Args: {
          p_artist_id?: string
          p_before_created?: string
          p_before_id?: string
          p_limit?: number
          p_query?: string
          p_sponsored?: boolean
          p_status?: string
        }
        Returns: {
          artist_id: string
          artist_name: string
          cover_url: string
          created_at: string
          genre: string
          id: string
          is_sponsored: boolean
          moderation_reason: string
          rejected_streams: number
          sponsor_id: string
          sponsor_name: string
          status: string
          streams: number
          title: string
        }[]
      }
      admin_search_users: {
        Args: {
          p_before_created?: string
          p_before_id?: string
          p_limit?: number
          p_query?: string
          p_role?: Database["public"]["Enums"]["app_role"]
          p_suspended?: boolean
          p_verified?: boolean
        }
        Returns: {
          avatar_url: string
          balance: number
          created_at: string
          display_name: string
          email: string
          id: string
          is_suspended: boolean
          is_verified: boolean
          last_sign_in_at: string
          role: Database["public"]["Enums"]["app_role"]
          suspended_reason: string
          username: string
        }[]
      }
      admin_set_user_role: {
        Args: {
          p_reason: string
          p_role: Database["public"]["Enums"]["app_role"]
          p_user_id: string
        }
        Returns: Json
      }
      admin_suspend_user: {
        Args: { p_reason: string; p_user_id: string }
        Returns: Json
      }
      admin_system_status: { Args: never; Returns: Json }
      admin_track_detail: { Args: { p_track_id: string }; Returns: Json }
      admin_unhide_track: {
        Args: { p_reason?: string; p_track_id: string }
        Returns: Json
      }
      admin_unsuspend_user: {
        Args: { p_reason?: string; p_user_id: string }
        Returns: Json
      }
      admin_user_detail: { Args: { p_user_id: string }; Returns: Json }
      check_active_sponsorship: {
        Args: { p_artist_id: string; p_sponsor_id: string }
        Returns: boolean
      }
      check_active_sponsorship_for_track: {
        Args: { p_artist_id: string; p_sponsor_id: string; p_track_id: string }
        Returns: boolean
      }
      check_duplicate_stream_enhanced: {
        Args: { p_track_id: string; p_user_id: string }
        Returns: Json
      }
      choose_signup_role: {
        Args: { p_role: Database["public"]["Enums"]["app_role"] }
        Returns: Database["public"]["Enums"]["app_role"]
      }
      complete_cashout: { Args: { p_id: string }; Returns: Json }
      complete_payment: {
        Args: {
          p_amount: number
          p_provider: string
          p_raw?: Json
          p_status: string
          p_tx_ref: string
          p_user_id: string
        }
        Returns: Json
      }
      consume_stream: { Args: { p_user_id: string }; Returns: boolean }
      create_payment: {
        Args: { p_amount?: number; p_provider: string; p_purpose: string }
        Returns: Json
      }
      current_user_role: {
        Args: never
        Returns: Database["public"]["Enums"]["app_role"]
      }
      detect_stream_fraud: {
        Args: {
          p_device_fingerprint: string
          p_ip_address?: string
          p_session_id?: string
          p_track_id: string
          p_user_agent?: string
          p_user_id: string
        }
        Returns: Json
      }
      finish_play: {
        Args: { p_duration?: number; p_play_id: string }
        Returns: Json
      }
      get_app_bootstrap: {
        Args: { p_device_info?: string; p_session_id?: string }
        Returns: Json
      }
      get_app_setting: { Args: { setting_key: string }; Returns: boolean }
      get_app_text_setting: { Args: { setting_key: string }; Returns: string }
      get_artist_dashboard: { Args: never; Returns: Json }
      get_artist_first_screen: {
        Args: { p_from: string; p_period: string; p_to: string }
        Returns: Json
      }
      get_earnings_statement: {
        Args: { p_from: string; p_period: string; p_to: string }
        Returns: {
          amount: number
          period_start: string
          streams: number
        }[]
      }
      get_fan_dashboard: { Args: never; Returns: Json }
      get_fan_first_screen: { Args: never; Returns: Json }
      get_genre_station: {
        Args: { p_genre: string; p_limit?: number }
        Returns: Json
      }
      get_listener_home: { Args: { p_limit?: number }; Returns: Json }
      get_online_users: {
        Args: never
        Returns: {
          last_seen: string
          user_id: string
        }[]
      }
      get_or_create_daily_stream_limit: {
        Args: { p_user_id: string }
        Returns: {
          created_at: string
          daily_limit: number
          limit_date: string
          streams_remaining: number | null
          streams_used: number
          updated_at: string
          user_id: string
        }[]
        SetofOptions: {
          from: "*"
          to: "daily_stream_limits"
          isOneToOne: false
          isSetofReturn: true
        }
      }
      get_platform_stats: { Args: never; Returns: Json }
      get_playlist: { Args: { p_playlist_id?: string }; Returns: Json }
      get_sponsor_analytics: { Args: { p_days?: number }; Returns: Json }
      get_sponsor_dashboard: { Args: never; Returns: Json }
      get_sponsor_first_screen: { Args: { p_days?: number }; Returns: Json }
      get_top_fans: {
        Args: { p_limit?: number }
        Returns: {
          avatar_url: string
          display_name: string
          stream_count: number
          user_id: string
          username: string
        }[]
      }
      get_wallet_history: {
        Args: {
          p_from?: string
          p_kind?: string
          p_limit?: number
          p_offset?: number
          p_to?: string
        }
        Returns: Json
      }
      has_remaining_streams: { Args: { p_user_id: string }; Returns: boolean }
      has_valid_kyc: {
        Args: { a: Database["public"]["Tables"]["artist_profiles"]["Row"] }
        Returns: boolean
      }
      increment_artist_streams: {
        Args: { p_artist_id: string }
        Returns: number
      }
      increment_track_streams: { Args: { p_track_id: string }; Returns: number }
      is_admin: { Args: never; Returns: boolean }
      is_user_suspended: { Args: { p_user_id: string }; Returns: boolean }
      list_genres: { Args: never; Returns: Json }
      record_listen: {
        Args: { p_play_id: string; p_seconds: number }
        Returns: number
      }
      record_stream_for_duplicate_prevention: {
        Args: {
          p_device_fingerprint?: string
          p_ip_address?: string
          p_session_id?: string
          p_stream_duration?: number
          p_track_id: string
          p_user_id: string
        }
        Returns: Json
      }
      reject_cashout: {
        Args: { p_id: string; p_reason?: string }
        Returns: Json
      }
      remove_user_session: {
        Args: { p_session_id: string }
        Returns: undefined
      }
      reorder_playlist: {
        Args: { p_playlist_id: string; p_track_ids: string[] }
        Returns: undefined
      }
      request_cashout: {
        Args: {
          p_account_name?: string
          p_account_number?: string
          p_amount: number
          p_bank_name?: string
        }
        Returns: Json
      }
      respond_to_invite: {
        Args: { p_accept: boolean; p_invite_id: string }
        Returns: Json
      }
      search_catalog: {
        Args: { p_limit?: number; p_query: string }
        Returns: Json
      }
      set_track_duration: {
        Args: { p_audio_url: string; p_seconds: number; p_track_id: string }
        Returns: boolean
      }
      settle_sponsored_stream: {
        Args: {
          p_amount: number
          p_artist_id: string
          p_reference: string
          p_sponsor_id: string
          p_track_id?: string
        }
        Returns: Json
      }
      start_play: {
        Args: { p_device?: Json; p_track_id: string }
        Returns: string
      }
      submit_kyc: {
        Args: {
          p_document_number: string
          p_document_path?: string
          p_document_type: string
          p_full_name: string
        }
        Returns: Json
      }
      transfer_funds: {
        Args: {
          p_amount: number
          p_from: string
          p_kind: string
          p_metadata?: Json
          p_reference: string
          p_stream_id?: string
          p_to: string
          p_track_id?: string
        }
        Returns: Json
      }
      update_device_fingerprint: {
        Args: {
          p_device_details?: Json
          p_device_fingerprint: string
          p_ip_address?: string
          p_language?: string
          p_platform?: string
          p_screen_resolution?: string
          p_timezone?: string
          p_user_agent?: string
          p_user_id: string
        }
        Returns: Json
      }
      upsert_user_session: {
        Args: {
          p_device_info?: string
          p_ip_address?: string
          p_session_id: string
          p_user_id: string
        }
        Returns: undefined
      }
      verification_active: {
        Args: { p: Database["public"]["Tables"]["public_profiles"]["Row"] }
        Returns: boolean
      }
    }
    Enums: {
      app_role: "fan" | "artist" | "sponsor" | "admin"
    }
    CompositeTypes: {
      [_ in never]: never
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
      app_role: ["fan", "artist", "sponsor", "admin"],
    },
  },
} as const
