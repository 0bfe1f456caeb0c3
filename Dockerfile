# syntax=docker/dockerfile:1
# Detour in a container: a static binary on a distroless base, run as a
# non-root user. docs/deploy.md explains the image and deploy/compose.yaml.
#
#   docker build -t detour .
#   docker run --rm -p 8080:8080 -v "$PWD/detour.yaml:/etc/detour/detour.yaml:ro" detour
#
# The configuration must listen on every interface inside the container
# (listen: ":8080").

FROM golang:1.26-bookworm AS build
# The commit `detour version` names: docker build --build-arg COMMIT=$(git rev-parse HEAD) .
ARG COMMIT=""
WORKDIR /src
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
# CGO off: a static binary that needs no libc in the final image.
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags="-s -w -X main.commit=${COMMIT}" -o /out/detour ./cmd/detour

# distroless/static: CA certificates, tzdata and /etc/passwd with nonroot
# (65532), no shell, no package manager.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/detour /usr/local/bin/detour
USER nonroot:nonroot
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/detour"]
CMD ["serve", "-c", "/etc/detour/detour.yaml"]
