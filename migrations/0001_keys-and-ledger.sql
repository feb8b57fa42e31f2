-- Up Migration

-- API keys: the secret is never stored, only its hash. During a rotation the old hash stays valid
-- until previous_valid_until.
CREATE TABLE api_keys (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  key_hash text NOT NULL UNIQUE,
  key_alias text,
  models text[] NOT NULL DEFAULT '{}',
  tiers text[] NOT NULL DEFAULT '{}',
  max_budget numeric CHECK (max_budget >= 0),
  budget_duration text,
  budget_reset_at timestamptz,
  tpm_limit integer CHECK (tpm_limit >= 0),
  rpm_limit integer CHECK (rpm_limit >= 0),
  max_parallel_requests integer CHECK (max_parallel_requests >= 0),
  expires timestamptz,
  blocked boolean NOT NULL DEFAULT false,
  metadata jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  previous_hash text UNIQUE,
  previous_valid_until timestamptz
);

-- The ledger: one row per request, one per upstream or classifier attempt. Rows are only inserted,
-- idempotently on their natural keys; totals come from rollups of these rows. No foreign key from
-- attempts to requests: the two are written in separate batches, in either order.
CREATE TABLE requests (
  request_id text PRIMARY KEY,
  key_alias text,
  key_hash text,
  endpoint text NOT NULL,
  model_asked text,
  complexity text,
  tier text,
  cause text,
  table_version text,
  status integer NOT NULL,
  error_code text,
  started_at timestamptz NOT NULL,
  first_token_at timestamptz,
  finished_at timestamptz,
  prompt_tokens integer,
  completion_tokens integer,
  usage_state text NOT NULL CHECK (usage_state IN ('confirmed', 'estimated', 'unknown')),
  cost numeric
);
CREATE INDEX requests_key_hash_started_at ON requests (key_hash, started_at);
CREATE INDEX requests_started_at ON requests (started_at);

CREATE TABLE attempts (
  request_id text NOT NULL,
  attempt_no integer NOT NULL,
  kind text NOT NULL CHECK (kind IN ('upstream', 'classifier')),
  deployment text NOT NULL,
  response_id text,
  status integer,
  error_code text,
  prompt_tokens integer,
  completion_tokens integer,
  ttft_ms integer,
  duration_ms integer,
  cost numeric,
  PRIMARY KEY (request_id, attempt_no)
);

-- Down Migration

DROP TABLE attempts;
DROP TABLE requests;
DROP TABLE api_keys;
