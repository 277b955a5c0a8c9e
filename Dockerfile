# svc: build once, run as a non-root user against PostgreSQL (or the embedded database in /data).
# The build and start steps are exercised outside Docker by apps/http/src/dockerfile.test.ts, so this recipe
# cannot rot unseen: keep build steps as RUN lines of the build stage and the start command as the final CMD.

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY . .
RUN npm install -g pnpm@12.21.0
RUN pnpm install --frozen-lockfile
RUN pnpm build
RUN pnpm install --frozen-lockfile --prod --offline

FROM node:20-bookworm-slim
ENV NODE_ENV=production SVC_HTTP_HOST=0.0.0.0 SVC_HTTP_PORT=8080 SVC_DATA_DIR=/data/svc
WORKDIR /app
COPY --from=build /app /app
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=3s --start-period=20s \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.SVC_HTTP_PORT||8080)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "apps/cli/dist/main.js", "serve", "http", "--migrate"]
