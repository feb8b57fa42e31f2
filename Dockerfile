# autotier: build stage compiles TypeScript; runtime stage has production dependencies only.
# The same steps run in CI without a Docker engine: `.ci/run` does `npm ci` + `npm run build`, and
# `.ci/production-start.sh` does `npm ci --omit=dev` + `node dist/main.js` and checks /health.

FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
RUN npm run build

FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production \
    AUTOTIER_PORT=4000 \
    AUTOTIER_HOST=0.0.0.0 \
    AUTOTIER_ROUTING_TABLE=/etc/autotier/routing-table.yaml \
    AUTOTIER_LOG_LEVEL=info
# Optional: AUTOTIER_REDIS_URL (shared state across replicas), AUTOTIER_WORKERS (processes per container),
# and the API-key variables your routing table names in `api_key_env`.
# A table without api_keys refuses to start on 0.0.0.0 (it would serve every client): mount a table with
# keys, or say so with `-e AUTOTIER_OPEN=1` (docs/start-up.md). The example table has no keys.
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY src/classify/model ./src/classify/model
COPY prompts ./prompts
# The database's SQL migrations, applied at start (src/store/migrate.ts reads them from the project root).
COPY migrations ./migrations
COPY routing-tables /etc/autotier/examples
# Mount your table at /etc/autotier (e.g. -v ./routing-tables:/etc/autotier:ro); it is re-read on change and on SIGHUP.
RUN cp /etc/autotier/examples/example-fleet.yaml /etc/autotier/routing-table.yaml
VOLUME ["/etc/autotier"]
USER node
EXPOSE 4000
HEALTHCHECK --interval=10s --timeout=3s --start-period=15s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.AUTOTIER_PORT||4000)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "dist/main.js"]
