"""The Redis backend's record of joins refused at a room's bound of seats per device (issue 48, 9), for the
teacher's "1 browser was refused a seat" and its one-click raise: two scripts on redis_lua.py's PRELUDE.

  P room:{C}:r:S   set   "device session" of each session refused a seat at the bound S (at most the room's
                         size), kept as long as a room's keys after the last refusal (ARGV 5 ms); use does not
                         refresh it and closing does not drop it (only an open room's teacher reads it)
"""

from classroom.rooms.redis_lua import PRELUDE

# ARGV 6 the bound, 7 device, 8 session, 9 max members
REFUSE = PRELUDE + """
if not alive() then return 0 end
local r = room .. ':r:' .. ARGV[6]
if redis.call('SCARD', r) < tonumber(ARGV[9]) then redis.call('SADD', r, ARGV[7] .. ' ' .. ARGV[8]) end
redis.call('PEXPIRE', r, ttl)
return 1
"""

# ARGV 6 the bound
REFUSED = PRELUDE + """
if not alive() then return {} end
return redis.call('SMEMBERS', room .. ':r:' .. ARGV[6])
"""
