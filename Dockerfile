# fisk-mcp in a container: a static binary on a distroless base, running as
# an unprivileged user.
#
#   docker build -t fisk-mcp .
#
# The image holds fisk-mcp and fisk-demo only. Mount the fisk applications to
# serve read-only, and give HTTP a bearer token (a non-loopback address
# without one is refused). A mounted binary must run on this base: a static
# Go binary (CGO_ENABLED=0, as the released nats CLI is) does.
#
#   docker run --rm -p 8080:8080 \
#     -v /usr/local/bin/nats:/apps/nats:ro \
#     -v "$PWD/token:/run/secrets/fisk-mcp-token:ro" \
#     fisk-mcp serve --http 0.0.0.0:8080 \
#       --token-file /run/secrets/fisk-mcp-token \
#       --read-only-tag impact:ro --confirm-tag impact:rw /apps/nats
#
# Over stdio (for a client that launches the container itself) use
# `docker run -i --rm ... fisk-mcp serve /apps/nats`.

FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=development
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/fisk-mcp ./cmd/fisk-mcp \
 && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/fisk-demo ./cmd/fisk-demo

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/fisk-mcp /out/fisk-demo /usr/local/bin/
USER nonroot:nonroot
EXPOSE 8080
ENTRYPOINT ["fisk-mcp"]
CMD ["--help"]
