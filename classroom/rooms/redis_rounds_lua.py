"""The Redis backend's scripts for a room's rounds (redis_lua.py holds the layout, the prelude and the rest):
the teacher's read, asking, revealing, and every room's open question and place (what hides lab-wide). A room keeps
every round up to RoomLimits.max_rounds and asks no more beyond (nothing is dropped); the teacher's poll reads
the two rounds its panel draws, the CSVs all of them.
"""

from classroom.rooms.redis_lua import PRELUDE

# ARGV 6 digest, 7 '1': live (the last round and the one it asks again only)
#   -> {version, lesson, members (flat), devices (flat), seats, locked, blocked, rounds asked, answered (flat),
#       presentation,
#       {n, question, revealed, again, asked, answers (flat), their devices (flat), screen, their times (flat)}...}
READ_TEACHER = PRELUDE + """
if not teacher() then return false end
touch()
local first, last = kept(room)
local out = {redis.call('HGET', room, 'version'), redis.call('HGET', room, 'lesson'), redis.call('HGETALL', members),
             redis.call('HGETALL', devices), redis.call('HGET', room, 'seats'),
             redis.call('HGET', room, 'locked') or '0', redis.call('SCARD', barred), last,
             redis.call('HGETALL', answered), redis.call('HGET', room, 'show') or ''}
local wanted = {}  -- the round numbers to read, oldest first
if ARGV[7] ~= '1' then
  for n = first, last do table.insert(wanted, n) end
elseif last > 0 then
  local again = tonumber(redis.call('HGET', room, 'again:' .. last))
  if again > 0 then table.insert(wanted, again) end
  table.insert(wanted, last)
end
for _, n in ipairs(wanted) do
  local q, rev, again, asked, screen = unpack(redis.call('HMGET', room, 'q:' .. n, 'rev:' .. n, 'again:' .. n,
                                                        'asked:' .. n, 'screen:' .. n))
  table.insert(out, {n, q, rev or '0', again, asked or '0', redis.call('HGETALL', answers(n)),
                     redis.call('HGETALL', answered_by(n)), screen or '0', redis.call('HGETALL', answered_at(n))})
end
return out
"""

# ARGV 6 digest, 7 question JSON ('' = the current one again), 8 max rounds, 9 asked (epoch seconds), 10 screen
ASK = PRELUDE + """
if not teacher() then return {'denied'} end
local current, q, again, screen = redis.call('HGET', room, 'round'), ARGV[7], '0', ARGV[10]
if q == '' then
  if current == '0' then return {'none'} end
  q, again = redis.call('HGET', room, 'q:' .. current), current
  screen = redis.call('HGET', room, 'screen:' .. current) or '0'
end
local first, last = kept(room)
if last - first + 1 >= tonumber(ARGV[8]) then return {'rounds'} end  -- at the bound: refused, nothing dropped
local n = redis.call('HINCRBY', room, 'round', 1)
redis.call('HSET', room, 'q:' .. n, q, 'again:' .. n, again, 'asked:' .. n, ARGV[9], 'screen:' .. n, screen)
touch()
return {'ok', n}
"""

# ARGV 6 digest
REVEAL = PRELUDE + """
if not teacher() then return {'denied'} end
local first, last = kept(room)
if last == 0 then return {'none'} end
local q = redis.call('HGET', room, 'q:' .. last)
for n = first, last do
  if redis.call('HGET', room, 'q:' .. n) == q then redis.call('HSET', room, 'rev:' .. n, '1') end
end
touch()
return {'ok'}
"""

# (ARGV 2, the code, unused) -> for every live room: {the question JSON of its open round (asked, not revealed)
#   or '', its presentation JSON or ''}
ROOMS_NOW = PRELUDE + """
local out = {}
for _, code in ipairs(redis.call('ZRANGEBYSCORE', INDEX, now - idle, '+inf')) do
  local n, show = unpack(redis.call('HMGET', key(code), 'round', 'show'))
  if n then
    local open = ''
    if n ~= '0' then
      local q, rev = unpack(redis.call('HMGET', key(code), 'q:' .. n, 'rev:' .. n))
      if q and not rev then open = q end
    end
    table.insert(out, {open, show or ''})
  end
end
return out
"""
