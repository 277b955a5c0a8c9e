-- release: v0.5.1
-- Actor ids become UUIDs and email the primary human identifier. Attribution columns follow the type and
-- gain foreign keys. Actors carry attribution metadata only: there are no credential columns, ever.

ALTER TABLE actors ALTER COLUMN id TYPE uuid USING id::uuid;
ALTER TABLE actors ALTER COLUMN id SET DEFAULT gen_random_uuid();
ALTER TABLE actors RENAME COLUMN created_at TO joined_at;
ALTER TABLE actors
  ADD COLUMN email text NOT NULL CHECK (email ~ '^[^@\s]+@[^@\s]+$'),
  ADD COLUMN role text,
  ADD COLUMN external_ids jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(external_ids) = 'object');
CREATE UNIQUE INDEX actors_email ON actors (lower(email));

ALTER TABLE work_units ALTER COLUMN created_by TYPE uuid USING created_by::uuid;
ALTER TABLE work_units ADD FOREIGN KEY (created_by) REFERENCES actors (id);
ALTER TABLE items ALTER COLUMN created_by TYPE uuid USING created_by::uuid;
ALTER TABLE items ADD FOREIGN KEY (created_by) REFERENCES actors (id);
ALTER TABLE links ALTER COLUMN created_by TYPE uuid USING created_by::uuid;
ALTER TABLE links ADD FOREIGN KEY (created_by) REFERENCES actors (id);
ALTER TABLE items_history ALTER COLUMN actor_id TYPE uuid USING actor_id::uuid;
ALTER TABLE items_history ADD FOREIGN KEY (actor_id) REFERENCES actors (id);
ALTER TABLE audit_log ALTER COLUMN actor_id TYPE uuid USING actor_id::uuid;
ALTER TABLE audit_log ADD FOREIGN KEY (actor_id) REFERENCES actors (id);
ALTER TABLE sync_jobs ALTER COLUMN created_by TYPE uuid USING created_by::uuid;
ALTER TABLE sync_jobs ADD FOREIGN KEY (created_by) REFERENCES actors (id);
ALTER TABLE glossary_terms ALTER COLUMN created_by TYPE uuid USING created_by::uuid;
ALTER TABLE glossary_terms ADD FOREIGN KEY (created_by) REFERENCES actors (id);
ALTER TABLE glossary_rejections ALTER COLUMN rejected_by TYPE uuid USING rejected_by::uuid;
ALTER TABLE glossary_rejections ADD FOREIGN KEY (rejected_by) REFERENCES actors (id);
CREATE INDEX audit_log_actor ON audit_log (actor_id);
