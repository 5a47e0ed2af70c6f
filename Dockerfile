# Build stage: compile TypeScript.
# Node 24: the active LTS line (Node 20 reached its end of life in April 2026).
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY src ./src
COPY migrations ./migrations
RUN npm run build && npm prune --omit=dev

# Runtime stage: compiled code, production dependencies and the tool catalog.
FROM node:24-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The sandbox chat view's page (/sandbox): static files tsc does not copy into dist.
COPY --from=build /app/src/sandbox/chat-view/page ./src/sandbox/chat-view/page
COPY package.json ./
COPY catalog ./catalog
# Embedded mode (no DATABASE_URL) keeps its data here, private to the service's user.
RUN install -d -o node -g node -m 700 /app/data
# A named volume mounted here starts as a copy of this directory, owned by `node`; a bind mount
# must be writable by uid 1000, or start-up says in one line that it cannot write it.
VOLUME ["/app/data"]
USER node
# Outside a container agentline listens on 127.0.0.1 when it runs on generated development
# secrets; inside one, loopback is unreachable from the published port, so listen everywhere.
ENV HOST=0.0.0.0
EXPOSE 3000
# Liveness (/health/live: the process answers), not readiness: Docker marks the container
# unhealthy on this, and an orchestrator may restart it, which cannot fix a database outage
# (/health/ready is for a load balancer). Node, not curl: the slim image has none. It asks the
# port and address the service listens on (PORT, HOST; a wildcard HOST answers on loopback). The
# start period covers the wait for PostgreSQL (DATABASE_STARTUP_TIMEOUT_MS, 60 s) and migrations.
HEALTHCHECK --interval=10s --timeout=3s --start-period=90s --retries=3 \
  CMD ["node", "-e", "const h=process.env.HOST,host=!h||h==='0.0.0.0'||h==='::'?'127.0.0.1':h.includes(':')?'['+h+']':h;fetch('http://'+host+':'+(process.env.PORT||3000)+'/health/live').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Migrations run at start-up (serialised across replicas by an advisory lock).
CMD ["node", "dist/src/main.js"]
