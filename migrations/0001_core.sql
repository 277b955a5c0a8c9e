-- release: v0.5
-- The initial twelve tables: core (projects, actors, systems, items, links, work_units), sync (items_history,
-- audit_log, sync_jobs) and glossary (glossary_groups, glossary_terms, glossary_rejections).

CREATE TABLE projects (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  slug        text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
  name        text NOT NULL,
  settings    jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(settings) = 'object'),
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- v0.5 kept actor ids as text; 0002 makes them UUIDs.
CREATE TABLE actors (
  id          text PRIMARY KEY,
  name        text NOT NULL DEFAULT '',
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE systems (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id  uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  name        text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  created_at  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (project_id, name),
  UNIQUE (project_id, id)
);

CREATE TABLE work_units (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id  uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  system_id   uuid,
  title       text NOT NULL,
  description text NOT NULL DEFAULT '',
  status      text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed')),
  created_by  text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  closed_at   timestamptz,
  UNIQUE (project_id, id),
  FOREIGN KEY (project_id, system_id) REFERENCES systems (project_id, id)
);
CREATE INDEX work_units_project_status ON work_units (project_id, status, updated_at DESC);

-- Soft delete stamps deleted_at; 0005 turns items into supersede chains.
CREATE TABLE items (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id    uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  system_id     uuid,
  item_type     text NOT NULL,
  title         text NOT NULL CHECK (length(title) BETWEEN 1 AND 1000),
  body          text NOT NULL DEFAULT '',
  created_by    text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  deleted_at    timestamptz,
  search        tsvector GENERATED ALWAYS AS (
                  setweight(to_tsvector('english', title), 'A') || setweight(to_tsvector('english', body), 'B')
                ) STORED,
  UNIQUE (project_id, id),
  FOREIGN KEY (project_id, system_id) REFERENCES systems (project_id, id)
);
CREATE INDEX items_search ON items USING gin (search);

-- Links join items (from 0005 on: chains, named by the id of their first row, so edits never break the
-- graph). Both ends and the link share one project: the composite foreign keys enforce it.
CREATE TABLE links (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id    uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  from_chain_id uuid NOT NULL,
  link_type     text NOT NULL CHECK (link_type IN ('depends', 'blocks', 'supersedes', 'conflicts')),
  to_chain_id   uuid NOT NULL,
  created_by    text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  UNIQUE (project_id, from_chain_id, link_type, to_chain_id),
  CHECK (from_chain_id <> to_chain_id),
  FOREIGN KEY (project_id, from_chain_id) REFERENCES items (project_id, id),
  FOREIGN KEY (project_id, to_chain_id) REFERENCES items (project_id, id)
);
CREATE INDEX links_to ON links (to_chain_id);

CREATE TABLE items_history (
  id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  project_id       uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  item_id          uuid NOT NULL REFERENCES items (id),
  change_kind      text NOT NULL CHECK (change_kind IN ('created', 'updated', 'deleted', 'restored')),
  actor_id         text,
  source           text NOT NULL,
  changed_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX items_history_item ON items_history (item_id, id);
CREATE INDEX items_history_project_time ON items_history (project_id, changed_at);

CREATE TABLE audit_log (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at          timestamptz NOT NULL DEFAULT now(),
  actor_id    text,
  source      text NOT NULL,
  operation   text NOT NULL,
  project_id  uuid REFERENCES projects (id) ON DELETE CASCADE,
  target_kind text,
  target_id   uuid,
  request_id  text,
  details     jsonb NOT NULL DEFAULT '{}'::jsonb
);
CREATE INDEX audit_log_project_at ON audit_log (project_id, at);
CREATE INDEX audit_log_target ON audit_log (target_id);

CREATE TABLE sync_jobs (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id  uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  kind        text NOT NULL,
  status      text NOT NULL CHECK (status IN ('running', 'succeeded', 'failed')),
  details     jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_by  text,
  started_at  timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz
);
CREATE INDEX sync_jobs_project ON sync_jobs (project_id, started_at DESC);

CREATE TABLE glossary_groups (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id  uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  name        text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  created_at  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (project_id, name),
  UNIQUE (project_id, id)
);

CREATE TABLE glossary_terms (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id  uuid NOT NULL,
  group_id    uuid NOT NULL,
  term        text NOT NULL CHECK (length(term) BETWEEN 1 AND 200),
  normalized  text NOT NULL,
  status      text NOT NULL CHECK (status IN ('accepted', 'proposed')),
  created_by  text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  decided_at  timestamptz,
  UNIQUE (group_id, normalized),
  FOREIGN KEY (project_id, group_id) REFERENCES glossary_groups (project_id, id) ON DELETE CASCADE
);
CREATE INDEX glossary_terms_lookup ON glossary_terms (project_id, normalized) WHERE status = 'accepted';

CREATE TABLE glossary_rejections (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id  uuid NOT NULL,
  group_id    uuid NOT NULL,
  term        text NOT NULL,
  normalized  text NOT NULL,
  reason      text NOT NULL DEFAULT '',
  rejected_by text,
  rejected_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (project_id, group_id) REFERENCES glossary_groups (project_id, id) ON DELETE CASCADE
);
CREATE INDEX glossary_rejections_lookup ON glossary_rejections (project_id, normalized);
