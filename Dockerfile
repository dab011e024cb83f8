# syntax=docker/dockerfile:1
# metahooks hook service: `docker build -t metahooks .` → an image that runs `metahooks serve`.
#
# Three stages on the current Node LTS (Node 24): `build` compiles TypeScript to dist/, `deps`
# installs production dependencies only, and the runtime stage copies just dist/ + node_modules/
# + package.json (for "type": "module") and runs as the unprivileged `node` user (uid 1000).
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
# --ignore-scripts: the `prepare` build needs the sources, copied below (and run once, explicitly).
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build.mjs ./scripts/
COPY src ./src
RUN npm run build

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
# --ignore-scripts: no production dependency needs an install script.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE}
# npm and corepack are not needed at run time; removing them shrinks the image and its CVE surface.
RUN rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack \
      /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/dist ./dist
COPY --chown=root:root package.json ./
# Files stay root-owned and read-only for the process; the chart also mounts the root filesystem read-only.
USER 1000:1000
# Hook port (PORT) and admin port (ADMIN_PORT: /metrics, /healthz, /readyz).
EXPOSE 8080 9090
ENTRYPOINT ["node", "dist/main.js"]
CMD ["serve"]
