--[[ lease-release.lua: Driver.leaseRelease. Frees a lease held by owner (no-op otherwise).
KEYS: none (P:lease:<name>).
ARGV: P, name, owner.
Returns: 1 when released, 0 otherwise.
Transition: held by owner -> free. ]]
--!include lib/keys.lua

local key = P .. ':lease:' .. ARGS[2]
if redis.call('HGET', key, 'owner') ~= ARGS[3] then return 0 end
redis.call('DEL', key)
return 1
