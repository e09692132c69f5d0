--[[ lease-acquire.lua: Driver.leaseAcquire. Takes or renews a named lease.
Expiry is judged by the engine's clock (`now`, as every driver time); the Redis TTL only collects leases
nobody renews.
KEYS: none (P:lease:<name>).
ARGV: P, name, owner, now, ttlMs.
Returns: 1 when owner holds the lease afterwards, else 0.
Transition: free|expired|held by owner -> held by owner until now + ttlMs. ]]
--!include lib/keys.lua

local key = P .. ':lease:' .. ARGS[2]
local owner, now, ttl = ARGS[3], tonumber(ARGS[4]), tonumber(ARGS[5])
local cur = redis.call('HMGET', key, 'owner', 'until')
if cur[1] and cur[1] ~= owner and tonumber(cur[2]) > now then return 0 end
redis.call('HSET', key, 'owner', owner, 'until', now + ttl)
redis.call('PEXPIRE', key, ttl + 60000)
return 1
