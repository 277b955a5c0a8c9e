-- release: v0.6
-- v0.6: items become supersede chains (edits create a new head, so nothing is overwritten), traversal
-- indexes for impact queries, semantic-impact labels on history, the capture inbox with its promotion
-- bridge, and legacy ideas.

-- Supersede chains. chain_id is the id of the chain's first row; exactly one row per chain is the head.
ALTER TABLE items
  ADD COLUMN chain_id uuid,
  ADD COLUMN supersedes_id uuid REFERENCES items (id),
  ADD COLUMN is_head boolean NOT NULL DEFAULT true,
  ADD COLUMN version integer NOT NULL DEFAULT 1 CHECK (version >= 1);
UPDATE items SET chain_id = id WHERE chain_id IS NULL;
ALTER TABLE items ALTER COLUMN chain_id SET NOT NULL;
ALTER TABLE items
  ADD CONSTRAINT items_chain_version UNIQUE (chain_id, version),
  ADD CONSTRAINT items_chain_start CHECK ((supersedes_id IS NULL) = (chain_id = id) AND (version = 1) = (chain_id = id)),
  ADD CONSTRAINT items_chain_project FOREIGN KEY (project_id, chain_id) REFERENCES items (project_id, id);
CREATE UNIQUE INDEX items_one_head_per_chain ON items (chain_id) WHERE is_head;
CREATE UNIQUE INDEX items_supersedes_once ON items (supersedes_id) WHERE supersedes_id IS NOT NULL;
CREATE INDEX items_project_heads ON items (project_id, updated_at DESC) WHERE is_head AND deleted_at IS NULL;
CREATE INDEX items_project_type_heads ON items (project_id, item_type, updated_at DESC) WHERE is_head AND deleted_at IS NULL;
-- One task in progress per work unit. The service takes a row lock on the work unit first; this index is
-- the last line of defence.
CREATE UNIQUE INDEX items_one_in_progress_task ON items (work_unit_id)
  WHERE item_type = 'task' AND status = 'in_progress' AND is_head AND deleted_at IS NULL;

-- Traversal: outgoing edges by source chain and type (impact), incoming for reverse look-ups.
CREATE INDEX links_from ON links (from_chain_id, link_type, to_chain_id);

-- History carries the chain, the version and the semantic-impact labels of each change.
ALTER TABLE items_history
  ADD COLUMN chain_id uuid,
  ADD COLUMN version integer,
  ADD COLUMN semantic_impacts text[] NOT NULL DEFAULT '{}',
  ADD COLUMN details jsonb NOT NULL DEFAULT '{}'::jsonb;
UPDATE items_history h SET chain_id = i.chain_id, version = i.version FROM items i WHERE i.id = h.item_id;
ALTER TABLE items_history ALTER COLUMN chain_id SET NOT NULL, ALTER COLUMN version SET NOT NULL;
ALTER TABLE items_history DROP CONSTRAINT items_history_change_kind_check;
ALTER TABLE items_history ADD CONSTRAINT items_history_change_kind_check
  CHECK (change_kind IN ('created', 'updated', 'superseded', 'status_changed', 'deleted', 'restored'));
ALTER TABLE items_history ADD CONSTRAINT items_history_known_impacts CHECK (
  semantic_impacts <@ ARRAY['numeric_change', 'rule_addition', 'rule_removal', 'status_change', 'scope_change',
                            'context_change', 'wording_change']::text[]
);
CREATE INDEX items_history_chain ON items_history (chain_id, id);
CREATE INDEX items_history_impacts ON items_history USING gin (semantic_impacts);

-- The capture inbox: raw text, separate from the curated item graph, not project-scoped until promoted.
CREATE TABLE captures (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  text             text NOT NULL,
  summary          text,
  sensitivity_hint text,
  signals          jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(signals) = 'object'),
  review_state     text NOT NULL DEFAULT 'inbox'
                   CHECK (review_state IN ('inbox', 'review', 'promoted', 'discarded', 'redacted')),
  created_by       uuid REFERENCES actors (id),
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  redacted_at      timestamptz,
  redacted_by      uuid REFERENCES actors (id),
  search           tsvector GENERATED ALWAYS AS (
                     setweight(to_tsvector('english', text), 'A') || setweight(to_tsvector('english', coalesce(summary, '')), 'B')
                   ) STORED,
  CHECK ((review_state = 'redacted') = (redacted_at IS NOT NULL))
);
CREATE INDEX captures_state_created ON captures (review_state, created_at DESC);
CREATE INDEX captures_search ON captures USING gin (search);

CREATE TABLE capture_promotions (
  capture_id  uuid PRIMARY KEY REFERENCES captures (id),
  item_id     uuid NOT NULL REFERENCES items (id),
  project_id  uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  promoted_by uuid REFERENCES actors (id),
  promoted_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX capture_promotions_item ON capture_promotions (item_id);

-- Legacy ideation notes on a work unit. Redaction masks the text and keeps the row.
CREATE TABLE ideas (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id   uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  work_unit_id uuid NOT NULL,
  text         text NOT NULL,
  author_id    uuid REFERENCES actors (id),
  created_at   timestamptz NOT NULL DEFAULT now(),
  redacted_at  timestamptz,
  redacted_by  uuid REFERENCES actors (id),
  search       tsvector GENERATED ALWAYS AS (to_tsvector('english', text)) STORED,
  FOREIGN KEY (project_id, work_unit_id) REFERENCES work_units (project_id, id)
);
CREATE INDEX ideas_work_unit ON ideas (work_unit_id, created_at DESC);
CREATE INDEX ideas_project ON ideas (project_id, created_at DESC);
CREATE INDEX ideas_search ON ideas USING gin (search);
