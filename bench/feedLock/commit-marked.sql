\set id random(1, 2000000000)
SELECT ds_commit(('[{"i":0,"id":"con_' || :id || '","w":"ws_bench","expected":0,"added":1}]')::jsonb, ('[{"i":0,"s":"con_' || :id || '","v":1,"w":"ws_bench","t":"contact.created","d":{"n":1},"m":{"workspaceId":"ws_bench","eventId":"evt_' || :id || '"}}]')::jsonb, '{}'::text[], '[]'::jsonb, '[]'::jsonb, now());
