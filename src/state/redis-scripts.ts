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

/** KEYS: in-flight hash of a deployment, live-instance zset. ARGV: instance, delta, alive-until. */
export const ADD_IN_FLIGHT = `
local value = redis.call('HINCRBY', KEYS[1], ARGV[1], ARGV[2])
if value <= 0 then redis.call('HDEL', KEYS[1], ARGV[1]) end
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
redis.call('PEXPIRE', KEYS[1], 3600000)
return value`;

/** KEYS: in-flight hashes..., live-instance zset last. ARGV: now. Sums counts of live instances only. */
export const GET_IN_FLIGHT = `
local alive = {}
for _, instance in ipairs(redis.call('ZRANGEBYSCORE', KEYS[#KEYS], ARGV[1], '+inf')) do alive[instance] = true end
local totals = {}
for index = 1, #KEYS - 1 do
  local sum = 0
  local fields = redis.call('HGETALL', KEYS[index])
  for field = 1, #fields, 2 do
    if alive[fields[field]] then sum = sum + tonumber(fields[field + 1]) end
  end
  totals[index] = sum
end
return totals`;

/** KEYS: latency hash. ARGV: id, sample ms, alpha. */
export const RECORD_LATENCY = `
local previous = redis.call('HGET', KEYS[1], ARGV[1])
local sample = tonumber(ARGV[2])
local value = sample
if previous then value = tonumber(ARGV[3]) * sample + (1 - tonumber(ARGV[3])) * tonumber(previous) end
redis.call('HSET', KEYS[1], ARGV[1], tostring(value))
return 1`;

/** KEYS: session key. ARGV: rank, ttl ms. Raises the rank, never lowers it, and restarts the window. */
export const RAISE_SESSION = `
local current = redis.call('GET', KEYS[1])
if (not current) or tonumber(current) < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1]) end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;

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

/** KEYS: slot counter. ARGV: limit, ttl ms. Returns 1 when a slot was taken. */
export const ACQUIRE_SLOT = `
local taken = tonumber(redis.call('GET', KEYS[1]) or '0')
if taken >= tonumber(ARGV[1]) then return 0 end
redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;

/** KEYS: slot counter. */
export const RELEASE_SLOT = `
local taken = redis.call('DECR', KEYS[1])
if taken <= 0 then redis.call('DEL', KEYS[1]) end
return taken`;
