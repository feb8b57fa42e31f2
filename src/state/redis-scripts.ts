/**
 * Lua scripts of the Redis state store: each runs atomically on the server, so two router instances
 * can never both take a probe, overshoot a limit, or overwrite a longer cooldown with a shorter one.
 */

/** KEYS: cooldown hash, probe key. ARGV: until, reason, failures, now, grace ms. Longer `until` wins. */
export const SET_COOLDOWN = `
local current = redis.call('HGET', KEYS[1], 'until')
if current and tonumber(current) > tonumber(ARGV[1]) then
  redis.call('HSET', KEYS[1], 'failures', ARGV[3])
else
  redis.call('HSET', KEYS[1], 'until', ARGV[1], 'reason', ARGV[2], 'failures', ARGV[3])
end
local untilMs = tonumber(redis.call('HGET', KEYS[1], 'until'))
redis.call('PEXPIRE', KEYS[1], math.floor(math.max(1, untilMs - tonumber(ARGV[4]) + tonumber(ARGV[5]))))
redis.call('DEL', KEYS[2])
return 1`;

/**
 * A Lua function the count scripts share: the sum of the counts the other live instances hold in a
 * count hash (instance -> count). Fields of instances whose lease has lapsed are deleted on the way.
 */
const LIVE_SUM = `
local function liveSum(hash, aliveKey, now, self)
  local sum = 0
  local fields = redis.call('HGETALL', hash)
  for field = 1, #fields, 2 do
    local instance = fields[field]
    local leaseUntil = redis.call('ZSCORE', aliveKey, instance)
    if (not leaseUntil) or tonumber(leaseUntil) <= now then redis.call('HDEL', hash, instance)
    elseif instance ~= self then sum = sum + tonumber(fields[field + 1]) end
  end
  return sum
end`;

/**
 * KEYS: live-instance zset, then count hashes (in-flight per deployment, slots per key).
 * ARGV: instance, lease-until, now, lease ms, then this instance's count per hash (absolute values).
 * Renews the instance's lease and writes its true counts, so a lost write heals on the next one.
 */
export const PUBLISH_COUNTS = `
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
for index = 2, #KEYS do
  local count = tonumber(ARGV[index + 3])
  if count > 0 then
    redis.call('HSET', KEYS[index], ARGV[1], count)
    redis.call('PEXPIRE', KEYS[index], ARGV[4])
  else
    redis.call('HDEL', KEYS[index], ARGV[1])
  end
end
return 1`;

/**
 * KEYS: in-flight hashes..., live-instance zset last. ARGV: now, this instance.
 * Sums the counts of the other live instances (the caller adds its own from memory).
 */
export const GET_IN_FLIGHT = `${LIVE_SUM}
local totals = {}
for index = 1, #KEYS - 1 do totals[index] = liveSum(KEYS[index], KEYS[#KEYS], tonumber(ARGV[1]), ARGV[2]) end
return totals`;

/** KEYS: latency hash. ARGV: id, sample ms, alpha. */
export const RECORD_LATENCY = `
local previous = redis.call('HGET', KEYS[1], ARGV[1])
local sample = tonumber(ARGV[2])
local value = sample
if previous then value = tonumber(ARGV[3]) * sample + (1 - tonumber(ARGV[3])) * tonumber(previous) end
redis.call('HSET', KEYS[1], ARGV[1], tostring(value))
return 1`;

/**
 * KEYS: session key, session index (zset of session keys by expiry). ARGV: rank, ttl ms, now, max
 * sessions. Raises the rank, never lowers it, and restarts the window; past the cap the sessions that
 * expire first (the least recently raised) are deleted. Returns how many were deleted.
 */
export const RAISE_SESSION = `
local current = redis.call('GET', KEYS[1])
if (not current) or tonumber(current) < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1]) end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
local now = tonumber(ARGV[3])
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), KEYS[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
redis.call('PEXPIRE', KEYS[2], ARGV[2])
local over = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[4])
if over <= 0 then return 0 end
local popped = redis.call('ZPOPMIN', KEYS[2], over)
for index = 1, #popped, 2 do redis.call('DEL', popped[index]) end
return over`;

/**
 * KEYS: window hash (bucket index -> amount). ARGV: amount, limit, window ms, enforce (1/0), now, buckets,
 * book-at ms (the bucket that receives the amount; empty = now). Returns {allowed, total, retry-after ms}.
 */
export const CONSUME_WINDOW = `
local buckets = tonumber(ARGV[6])
local windowMs = tonumber(ARGV[3])
local now = tonumber(ARGV[5])
local bucketMs = windowMs / buckets
local current = math.floor(now / bucketMs)
local amount = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local fields = redis.call('HGETALL', KEYS[1])
local total = 0
local live = {}
for field = 1, #fields, 2 do
  local index = tonumber(fields[field])
  local value = tonumber(fields[field + 1])
  if index <= current - buckets then redis.call('HDEL', KEYS[1], fields[field])
  else total = total + value; table.insert(live, {index, value}) end
end
if ARGV[4] == '1' and total + amount > limit then
  if amount > limit then return {0, total, windowMs} end
  table.sort(live, function(a, b) return a[1] < b[1] end)
  local remaining = total
  for _, bucket in ipairs(live) do
    remaining = remaining - bucket[2]
    if remaining + amount <= limit then return {0, total, math.max(1, math.ceil((bucket[1] + buckets) * bucketMs - now))} end
  end
  return {0, total, windowMs}
end
local target = current
if ARGV[7] ~= nil and ARGV[7] ~= '' then target = math.floor(tonumber(ARGV[7]) / bucketMs) end
if target <= current - buckets then return {1, total, 0} end
redis.call('HINCRBY', KEYS[1], tostring(target), amount)
redis.call('PEXPIRE', KEYS[1], windowMs)
return {1, total + amount, 0}`;

/** KEYS: period counter. ARGV: amount, limit, ttl ms, enforce (1/0). Returns {allowed, total, retry ms}. */
export const CONSUME_PERIOD = `
local total = tonumber(redis.call('GET', KEYS[1]) or '0')
local amount = tonumber(ARGV[1])
if ARGV[4] == '1' and total + amount > tonumber(ARGV[2]) then return {0, total, tonumber(ARGV[3])} end
total = redis.call('INCRBY', KEYS[1], amount)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {1, total, 0}`;

/**
 * KEYS: slot hash (instance -> slots held), live-instance zset. ARGV: instance, slots this instance
 * would hold with this one, limit, now, lease-until, lease ms. Returns 1 when the slot was taken.
 */
export const ACQUIRE_SLOT = `${LIVE_SUM}
local mine = tonumber(ARGV[2])
if liveSum(KEYS[1], KEYS[2], tonumber(ARGV[4]), ARGV[1]) + mine > tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1])
redis.call('HSET', KEYS[1], ARGV[1], mine)
redis.call('PEXPIRE', KEYS[1], ARGV[6])
return 1`;
