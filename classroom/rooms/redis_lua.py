"""The Redis backend's primitives as Lua scripts: each runs atomically inside Redis, so two
lab processes can never interleave half of one update with another.

Layout under a prefix P, for a room with code C:
  P room:{C}        hash   secret, pin, lesson, version, round (last), first (1: no round is dropped),
                           active (last use), seats (per device), locked ('1'),
                           q:N (question JSON), rev:N, again:N, asked:N (epoch seconds), screen:N,
                           show (the presentation's JSON: presentation.py)
  P room:{C}:m      hash   session -> last seen
  P room:{C}:d      hash   session -> device (clients.device), for members
  P room:{C}:x      set    sessions the teacher removed
  P room:{C}:b      set    devices the teacher took out: no new seats
  P room:{C}:a:N    hash   session -> answer JSON, for round N
  P room:{C}:ad:N   hash   session -> device, for round N's answers (stays when the seat goes)
  P room:{C}:at:N   hash   session -> when it last answered round N (epoch seconds)
  P room:{C}:as     hash   session -> device, of every seat with an answer in any round
  P rooms           zset   code -> last use: counts open rooms, finds idle ones
Every room key carries a TTL (ARGV[5] ms, longer than the idle limit) refreshed on use, so
Redis drops what an idle room leaves behind even if no lab process looks again; the idle
limit itself is checked against `active`, on the lab's (injectable) clock.
The scripts build key names from ARGV: fine on one Redis server (the hall runs one), not on
a Redis Cluster.

ARGV for every room script: 1 prefix, 2 code, 3 now, 4 idle seconds, 5 ttl ms, 6.. its own.
"""

PRELUDE = """
local P, C, now = ARGV[1], ARGV[2], tonumber(ARGV[3])
local idle, ttl = tonumber(ARGV[4]), tonumber(ARGV[5])
local INDEX = P .. 'rooms'
local function key(code) return P .. 'room:{' .. code .. '}' end
local room = key(C)
local members = room .. ':m'
local devices, removed, barred, answered = room .. ':d', room .. ':x', room .. ':b', room .. ':as'
local function answers(n) return room .. ':a:' .. n end
local function answered_by(n) return room .. ':ad:' .. n end
local function answered_at(n) return room .. ':at:' .. n end
local function kept(r)
  return tonumber(redis.call('HGET', r, 'first') or '1'), tonumber(redis.call('HGET', r, 'round') or '0')
end
local function drop(code)
  local r = key(code)
  local first, last = kept(r)
  for n = first, last do redis.call('DEL', r .. ':a:' .. n, r .. ':ad:' .. n, r .. ':at:' .. n) end
  redis.call('DEL', r, r .. ':m', r .. ':d', r .. ':x', r .. ':b', r .. ':as')
  redis.call('ZREM', INDEX, code)
end
local function alive()
  local active = redis.call('HGET', room, 'active')
  if not active then redis.call('ZREM', INDEX, C) return false end
  if now - tonumber(active) > idle then drop(C) return false end
  return true
end
local function touch()
  redis.call('HSET', room, 'active', ARGV[3])
  redis.call('ZADD', INDEX, ARGV[3], C)
  redis.call('PEXPIRE', room, ttl)
  redis.call('PEXPIRE', members, ttl)
  redis.call('PEXPIRE', devices, ttl)
  redis.call('PEXPIRE', removed, ttl)
  redis.call('PEXPIRE', barred, ttl)
  redis.call('PEXPIRE', answered, ttl)
  local first, last = kept(room)
  for n = first, last do
    redis.call('PEXPIRE', answers(n), ttl)
    redis.call('PEXPIRE', answered_by(n), ttl)
    redis.call('PEXPIRE', answered_at(n), ttl)
  end
end
local function teacher() return alive() and redis.call('HGET', room, 'secret') == ARGV[6] end
local function drop_member(s)
  redis.call('HDEL', members, s)
  redis.call('HDEL', devices, s)
end
"""

# ARGV 6 secret digest, 7 pin record, 8 lesson, 9 max rooms, 10 seats per device
CREATE = PRELUDE + """
for _, code in ipairs(redis.call('ZRANGEBYSCORE', INDEX, '-inf', '(' .. (now - idle))) do drop(code) end
if redis.call('EXISTS', room) == 1 then return 'taken' end
if redis.call('ZCARD', INDEX) >= tonumber(ARGV[9]) then return 'full' end
redis.call('HSET', room, 'secret', ARGV[6], 'pin', ARGV[7], 'lesson', ARGV[8], 'version', 1, 'round', 0, 'first', 1,
           'seats', ARGV[10])
touch()
return 'ok'
"""

# ARGV 6 session, 7 max members, 8 member idle seconds, 9 device, 10 present seconds
JOIN = PRELUDE + """
if not alive() then return 'gone' end
local s, device = ARGV[6], ARGV[9]
if redis.call('SISMEMBER', removed, s) == 1 then return 'removed' end
if redis.call('HEXISTS', members, s) == 1 then
  if redis.call('HGET', devices, s) ~= device then return 'elsewhere' end
  redis.call('HSET', members, s, ARGV[3])
  touch()
  return 'ok'
end
if redis.call('SISMEMBER', barred, device) == 1 then return 'removed' end
if redis.call('HGET', room, 'locked') == '1' then return 'locked' end
local seats = tonumber(redis.call('HGET', room, 'seats'))
local all, same = redis.call('HGETALL', devices), {}
for i = 1, #all, 2 do if all[i + 1] == device then table.insert(same, all[i]) end end
if #same >= seats then
  local left = #same
  for _, other in ipairs(same) do
    if now - tonumber(redis.call('HGET', members, other) or '0') > tonumber(ARGV[10]) then
      drop_member(other)
      left = left - 1
    end
  end
  if left >= seats then return 'crowded:' .. seats end
end
if redis.call('HLEN', members) >= tonumber(ARGV[7]) then
  local everyone = redis.call('HGETALL', members)
  for i = 1, #everyone, 2 do
    if now - tonumber(everyone[i + 1]) > tonumber(ARGV[8]) then drop_member(everyone[i]) end
  end
  if redis.call('HLEN', members) >= tonumber(ARGV[7]) then return 'full' end
end
redis.call('HSET', members, s, ARGV[3])
redis.call('HSET', devices, s, device)
touch()
return 'ok'
"""

# ARGV 6 session
LEAVE = PRELUDE + """
if alive() then drop_member(ARGV[6]) end
return 'ok'
"""

# ARGV 6 digest, 7 session, 8 '1': every seat of its device too
REMOVE = PRELUDE + """
if not teacher() then return {'denied'} end
local device, out = redis.call('HGET', devices, ARGV[7]), {ARGV[7]}
local first, last = kept(room)
for n = first, last do  -- a seat that left: its device is in its answers
  if not device then device = redis.call('HGET', answered_by(n), ARGV[7]) end
end
if device and ARGV[8] == '1' then  -- every seat of the device, in the room or gone with answers that count
  local all = redis.call('HGETALL', devices)
  for n = first, last do
    local by = redis.call('HGETALL', answered_by(n))
    for i = 1, #by do all[#all + 1] = by[i] end
  end
  for i = 1, #all, 2 do if all[i + 1] == device and all[i] ~= ARGV[7] then table.insert(out, all[i]) end end
end
for _, s in ipairs(out) do
  drop_member(s)
  redis.call('SADD', removed, s)
  redis.call('HDEL', answered, s)
  for n = first, last do
    redis.call('HDEL', answers(n), s)
    redis.call('HDEL', answered_by(n), s)
    redis.call('HDEL', answered_at(n), s)
  end
end
if device then redis.call('SADD', barred, device) end
touch()
return {'ok'}
"""

# ARGV 6 digest, 7 name ('locked' | 'seats' | 'unblock' | 'show'), 8 value
SETTING = PRELUDE + """
if not teacher() then return {'denied'} end
if ARGV[7] == 'unblock' then redis.call('DEL', barred) else redis.call('HSET', room, ARGV[7], ARGV[8]) end
touch()
return {'ok'}
"""

# ARGV 6 session -> {version, lesson, presentation, round, question, revealed, again, my answer}, or false
READ = PRELUDE + """
if not alive() or redis.call('HEXISTS', members, ARGV[6]) == 0 then return false end
redis.call('HSET', members, ARGV[6], ARGV[3])
touch()
local v, lesson, n, show = unpack(redis.call('HMGET', room, 'version', 'lesson', 'round', 'show'))
show = show or ''
if n == '0' then return {v, lesson, show, n} end
local q, rev, again = unpack(redis.call('HMGET', room, 'q:' .. n, 'rev:' .. n, 'again:' .. n))
return {v, lesson, show, n, q, rev or '0', again, redis.call('HGET', answers(n), ARGV[6])}
"""

# ARGV 6 session, 7 device -> {'ok', version, lesson, presentation, round, question, revealed, again, answers
#   (flat: every answer of the round once revealed, else none)} | {'removed'} | {'gone'}
VIEW = PRELUDE + """
if not alive() then return {'gone'} end
if redis.call('SISMEMBER', removed, ARGV[6]) == 1 or redis.call('SISMEMBER', barred, ARGV[7]) == 1 then
  return {'removed'}
end
if redis.call('HEXISTS', members, ARGV[6]) == 1 then  -- a seat that reads as a viewer is still a seat
  redis.call('HSET', members, ARGV[6], ARGV[3])
  touch()
end
local v, lesson, n, show = unpack(redis.call('HMGET', room, 'version', 'lesson', 'round', 'show'))
show = show or ''
if n == '0' then return {'ok', v, lesson, show, n} end
local q, rev, again = unpack(redis.call('HMGET', room, 'q:' .. n, 'rev:' .. n, 'again:' .. n))
local everyone = {}  -- how the class answered, once revealed
if rev then everyone = redis.call('HGETALL', answers(n)) end
return {'ok', v, lesson, show, n, q, rev or '0', again, everyone}
"""

# ARGV 6 session, 7 round, 8 answer JSON, 9 max answers, 10 when (epoch seconds)
ANSWER = PRELUDE + """
if not alive() or redis.call('HEXISTS', members, ARGV[6]) == 0 then return 'gone' end
local n = redis.call('HGET', room, 'round')
if n ~= ARGV[7] then return 'stale' end
if redis.call('HGET', room, 'rev:' .. n) then return 'revealed' end
local a, device = answers(n), redis.call('HGET', devices, ARGV[6])
if redis.call('HEXISTS', a, ARGV[6]) == 0 then
  local seats, mine, all = tonumber(redis.call('HGET', room, 'seats')), 0, redis.call('HVALS', answered_by(n))
  for _, d in ipairs(all) do if d == device then mine = mine + 1 end end
  if mine >= seats then return 'device:' .. seats end
  if redis.call('HLEN', a) >= tonumber(ARGV[9]) then return 'full' end
end
redis.call('HSET', a, ARGV[6], ARGV[8])
redis.call('HSET', answered_by(n), ARGV[6], device)
redis.call('HSET', answered_at(n), ARGV[6], ARGV[10])
redis.call('HSET', answered, ARGV[6], device)
redis.call('HSET', members, ARGV[6], ARGV[3])
touch()
return 'ok'
"""

# ARGV 6 digest, 7 lesson
SET_LESSON = PRELUDE + """
if not teacher() then return {'denied'} end
if redis.call('HGET', room, 'lesson') ~= ARGV[7] then
  redis.call('HSET', room, 'lesson', ARGV[7])
  redis.call('HINCRBY', room, 'version', 1)
end
touch()
return {'ok', redis.call('HGET', room, 'version')}
"""


# ARGV 6 digest
CLOSE = PRELUDE + """
if not teacher() then return {'denied'} end
drop(C)
return {'ok'}
"""

PIN_RECORD = PRELUDE + """
if not alive() then return false end
return redis.call('HGET', room, 'pin')
"""

# ARGV 6 pin record read before the PIN check, 7 new digest
RECLAIM = PRELUDE + """
if not alive() or redis.call('HGET', room, 'pin') ~= ARGV[6] then return 'gone' end
redis.call('HSET', room, 'secret', ARGV[7])
touch()
return 'ok'
"""

# KEYS 1 counter; ARGV 1 seconds to keep it
HIT = """
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return n
"""
