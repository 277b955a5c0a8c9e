-- release: v0.5.2
-- The item-type registry. Items gain `context`, validated against their type's JSON Schema by the service;
-- tasks and QA checks become item types, with a status and a work unit. The schemas seeded here are the
-- ones in packages/domain/src/item-types.ts (a test keeps them equal).

CREATE TABLE item_types (
  key          text PRIMARY KEY CHECK (key ~ '^[a-z][a-z0-9_]{1,39}$'),
  display_name text NOT NULL,
  schema       jsonb NOT NULL CHECK (jsonb_typeof(schema) = 'object'),
  owner        text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now()
);

INSERT INTO item_types (key, display_name, schema, owner) VALUES
  ('decision', 'Decision', '{"type":"object"}', 'system'),
  ('knowledge', 'Knowledge', '{"type":"object"}', 'system'),
  ('policy', 'Policy', '{"type":"object"}', 'system'),
  ('document', 'Document', '{"type":"object"}', 'system'),
  ('task', 'Task', '{"type":"object","additionalProperties":false,"properties":{"sort_order":{"type":"integer"},"summary":{"type":"string"},"blocked_reason":{"type":"string"}}}', 'system'),
  ('qa_check', 'QA check', '{"type":"object","additionalProperties":false,"properties":{"coverage":{"enum":["human_only","automated","mixed"]},"target_task_ids":{"type":"array","items":{"type":"string","pattern":"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"},"uniqueItems":true},"target_item_ids":{"type":"array","items":{"type":"string","pattern":"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"},"uniqueItems":true},"note":{"type":"string"}}}', 'system');

ALTER TABLE items ADD FOREIGN KEY (item_type) REFERENCES item_types (key);
ALTER TABLE items
  ADD COLUMN context jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(context) = 'object'),
  ADD COLUMN work_unit_id uuid,
  ADD COLUMN status text,
  ADD FOREIGN KEY (project_id, work_unit_id) REFERENCES work_units (project_id, id);

ALTER TABLE items ADD CONSTRAINT items_status_fits_type CHECK (
  CASE item_type
    WHEN 'task' THEN status IN ('proposed', 'in_progress', 'blocked', 'done')
    WHEN 'qa_check' THEN status IN ('pending', 'passed', 'failed')
    ELSE status IS NULL
  END
);
ALTER TABLE items ADD CONSTRAINT items_task_has_work_unit CHECK (item_type <> 'task' OR work_unit_id IS NOT NULL);

CREATE INDEX items_work_unit ON items (work_unit_id) WHERE work_unit_id IS NOT NULL;
CREATE INDEX items_qa_target_tasks ON items USING gin ((context -> 'target_task_ids')) WHERE item_type = 'qa_check';
CREATE INDEX items_qa_target_items ON items USING gin ((context -> 'target_item_ids')) WHERE item_type = 'qa_check';
