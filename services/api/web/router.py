"""The HTML pages: /, /gpus/{id}, /tco, /quotes, /quotes/check, /quotes/{id} (for browsers),
static files.

Pages call the JSON endpoints' own code (the /recommend and /tco route functions, the
catalog, price and quote services), so a page never disagrees with the API it sits on.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Coroutine, Mapping
from typing import Annotated, Any, ClassVar
from urllib.parse import parse_qs, urlencode

from fastapi import APIRouter, Depends, HTTPException, Path, Request, Response
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi.routing import APIRoute
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.routing import Match
from starlette.types import Scope

from services.api.auth import OptionalKey
from services.api.charts.service import resolve_gpu
from services.api.deps import ModelDep, SessionDep, SettingsDep
from services.api.prices.router import check_quote
from services.api.quotes import service as quotes_api
from services.api.recommend.router import get_recommendation
from services.api.strict import reject_unknown_query
from services.api.tco.router import get_tco
from services.api.tco.schemas import TcoResponse
from services.api.web.check_page import check_body, check_context
from services.api.web.gpu_page import gpu_view, spec_value
from services.api.web.negotiation import prefers_html
from services.api.web.quotes_page import cluster_body, quote_view, quotes_context, standard_quotes
from services.api.web.recommend_page import FormState, form_context, recommendation_view
from services.api.web.render import FieldError, render, static_files
from services.api.web.tco_page import DEFAULT_TCO_GPU, tco_context
from shared.kit.errors import InputError

RecommendationDep = Annotated[Response, Depends(get_recommendation)]
TcoDep = Annotated[TcoResponse, Depends(get_tco)]
DEFAULT_TASK = "cv"
# Browsers revalidate pages; assets carry a content hash in their URL and never change.
PAGE_CACHE = "no-cache"
ASSET_CACHE = "public, max-age=31536000, immutable"


def _field_errors(exc: Exception) -> list[FieldError]:
    """The same field names and messages as the JSON 422 answers (services/api/errors.py)."""
    if isinstance(exc, InputError):
        valid = f" (valid: {', '.join(exc.valid)})" if exc.valid else ""
        return [FieldError(exc.field, exc.message + valid)]
    assert isinstance(exc, RequestValidationError)
    errors = []
    for error in exc.errors():
        parts = [str(p) for p in error["loc"] if p not in ("query", "path", "body")]
        errors.append(FieldError(".".join(parts), str(error["msg"])))
    return errors


class PageRoute(APIRoute):
    """A GET page: empty form fields mean "default", bad input is answered with an HTML
    page (not JSON), and the server time goes out in a Server-Timing header.

    A page whose answer comes from an API route's parameters (the recommendation, own vs
    rent) refuses a parameter that route does not know, as the API does, with a 422 page
    naming it and the form to fix it: a misspelt `memroy_gb` would otherwise be ignored,
    the page would show the default as if it were the answer, and its JSON, SVG and PNG
    links, which repeat the query, would be refused by the API. Dropping the name from the
    links instead would leave the page silently answering another question. The quote and
    price-check pages validate their query with the API's own models, which refuse unknown
    fields already; the GPU and stored-quote pages take no query and their links carry none.
    """

    query_defaults: ClassVar[dict[str, str]] = {}
    refuses_unknown: ClassVar[bool] = False

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def page(request: Request) -> Response:
            started = time.perf_counter()
            request = self._normalized(request)
            try:
                if self.refuses_unknown:
                    # The API's own check, over this route's parameters (its dependencies').
                    await reject_unknown_query(request)
                response = await handler(request)
            except (RequestValidationError, InputError) as exc:
                response = await run_in_threadpool(
                    self.error_page, request, _field_errors(exc), 422
                )
            except HTTPException as exc:
                message = exc.detail.get("message") if isinstance(exc.detail, dict) else None
                errors = [FieldError("", str(message or exc.detail))]
                response = await run_in_threadpool(
                    self.error_page, request, errors, exc.status_code
                )
            elapsed_ms = (time.perf_counter() - started) * 1000
            response.headers["Server-Timing"] = f"page;dur={elapsed_ms:.1f}"
            response.headers.setdefault("Cache-Control", PAGE_CACHE)
            response.headers["Vary"] = "Accept"
            return response

        return page

    def _normalized(self, request: Request) -> Request:
        """A GET form sends every field, empty or not; drop the empty ones, and the tracking
        parameters a shared link may carry (utm_source, fbclid, ...): they mean nothing to
        the page and would make its JSON, SVG and PNG links, which repeat the query, 422."""
        pairs = [
            (k, v)
            for k, v in request.query_params.multi_items()
            if v.strip() != "" and not _tracking(k)
        ]
        for key, value in self.query_defaults.items():
            if not any(k == key for k, _ in pairs):
                pairs.append((key, value))
        scope = dict(request.scope)
        scope["query_string"] = urlencode(pairs).encode()
        return Request(scope, request.receive)

    def error_page(self, request: Request, errors: list[FieldError], status: int) -> Response:
        html = render("error.html", errors=errors, status=status, title="Not found")
        return HTMLResponse(html, status_code=status)


# Link-tracking parameters (analytics and ad platforms), never a field of ours.
TRACKING_PREFIXES = ("utm_",)
TRACKING_NAMES = frozenset({"fbclid", "gclid", "dclid", "msclkid", "mc_cid", "mc_eid"})


def _tracking(name: str) -> bool:
    return name.startswith(TRACKING_PREFIXES) or name in TRACKING_NAMES


class RecommendPageRoute(PageRoute):
    query_defaults = {"task": DEFAULT_TASK}
    refuses_unknown = True

    def error_page(self, request: Request, errors: list[FieldError], status: int) -> Response:
        form = FormState.from_query(request.query_params)
        html = render("recommend.html", view=None, errors=errors, **form_context(form))
        return HTMLResponse(html, status_code=status)


class RecommendFragmentRoute(RecommendPageRoute):
    def error_page(self, request: Request, errors: list[FieldError], status: int) -> Response:
        return HTMLResponse(render("_results.html", view=None, errors=errors), status_code=status)


class HtmlPageRoute(PageRoute):
    """Matches only requests that prefer HTML, so the JSON route on the same path keeps
    every API client; include this router before the JSON one."""

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if scope["type"] == "http" and not prefers_html(Headers(scope=scope).get("accept", "")):
            return Match.NONE, {}
        return super().matches(scope)


router = APIRouter(include_in_schema=False)


def _query_string(request: Request) -> str:
    return urlencode(list(request.query_params.multi_items()))


def _recommendation_context(request: Request, answer: Response) -> dict[str, Any]:
    query_string = _query_string(request)
    view = recommendation_view(bytes(answer.body), query_string)
    return {"view": view, "errors": []}


def home(request: Request, answer: RecommendationDep) -> HTMLResponse:
    """The recommendation view; the URL holds the query, so a view can be shared."""
    form = FormState.from_query(request.query_params)
    context = _recommendation_context(request, answer)
    return HTMLResponse(render("recommend.html", **context, **form_context(form)))


def results_fragment(request: Request, answer: RecommendationDep) -> HTMLResponse:
    """Chart and table only: what the page's script swaps in when the form changes."""
    return HTMLResponse(render("_results.html", **_recommendation_context(request, answer)))


router.add_api_route(
    "/", home, methods=["GET"], response_class=HTMLResponse, route_class_override=RecommendPageRoute
)
router.add_api_route(
    "/fragments/recommendation",
    results_fragment,
    methods=["GET"],
    response_class=HTMLResponse,
    route_class_override=RecommendFragmentRoute,
)


def gpu_page(
    request: Request, gpu_id: str, session: SessionDep, settings: SettingsDep, model: ModelDep
) -> HTMLResponse:
    """Specs, provenance, price history, cloud offers and the model's predictions."""
    try:
        spec = resolve_gpu(gpu_id, field="gpu_id")
    except InputError as exc:
        # The closest ids, as the JSON 404 has them.
        raise HTTPException(404, {"message": exc.message}) from exc
    state = request.app.state
    view = gpu_view(session, spec, settings, model, state.series_cache, state.price_cache)
    return HTMLResponse(render("gpu.html", view=view, spec_value=spec_value, title=spec.name))


router.add_api_route(
    "/gpus/{gpu_id}",
    gpu_page,
    methods=["GET"],
    response_class=HTMLResponse,
    route_class_override=HtmlPageRoute,
)


@router.get("/static/{name}")
def static(name: str, v: str | None = None) -> Response:
    """The package's own CSS, JS and icons: nothing is loaded from a CDN."""
    found = static_files().get(name)
    if found is None:
        raise HTTPException(404, {"message": f"no static file {name!r}"})
    content, media_type, digest = found
    cache = ASSET_CACHE if v == digest else "public, max-age=300"
    return Response(content, media_type=media_type, headers={"Cache-Control": cache})


# --- own vs rent, quotes --------------------------------------------------------------


class TcoPageRoute(HtmlPageRoute):
    query_defaults = {"gpu": DEFAULT_TCO_GPU}
    refuses_unknown = True

    def error_page(self, request: Request, errors: list[FieldError], status: int) -> Response:
        context = tco_context(request.query_params, None)
        return HTMLResponse(render("tco.html", errors=errors, **context), status_code=status)


def tco_page(request: Request, answer: TcoDep) -> HTMLResponse:
    """Own vs rent over time; GET /tco's own parameters, defaults and validation."""
    context = tco_context(request.query_params, answer)
    return HTMLResponse(render("tco.html", errors=[], **context))


router.add_api_route(
    "/tco",
    tco_page,
    methods=["GET"],
    response_class=HTMLResponse,
    route_class_override=TcoPageRoute,
)


class QuotesPageRoute(HtmlPageRoute):
    def error_page(self, request: Request, errors: list[FieldError], status: int) -> Response:
        # The form as typed, to fix the mistake; the standard builds need a session and
        # are one click away on /quotes.
        context = quotes_context(request.query_params, None, None)
        html = render("quotes.html", errors=errors, **context)
        return HTMLResponse(html, status_code=status)


def quotes_page(
    request: Request,
    key: OptionalKey,
    session: SessionDep,
    settings: SettingsDep,
    model: ModelDep,
) -> HTMLResponse:
    """The quote form, the quote it builds and the standard builds.

    A submitted form builds and stores a quote exactly as POST /quotes/cluster does, so the
    URL carries the query (shareable, works without JavaScript) and the stored id gives the
    CSV export and a permanent link. Being a GET, an identical request with an identical
    result reuses the stored quote: reloads and crawlers add no rows. New rows count
    against the same anonymous per-client limit as the API.
    """
    query = request.query_params
    quote = None
    if query:  # a bare /quotes is the empty form
        try:
            body = cluster_body(query)
        except ValidationError as exc:  # the same field names and messages as the JSON 422
            raise RequestValidationError(exc.errors()) from exc
        made_by = quotes_api.maker(request, key, settings)
        try:
            created = quotes_api.create_cluster(
                session, body, settings, model, made_by, reuse_identical=True
            )
        except HTTPException as exc:
            if exc.status_code != 429:
                raise
            return _quotes_limited(query, exc)
        quote = quote_view(created)
    context = quotes_context(query, quote, standard_quotes(session))
    return HTMLResponse(render("quotes.html", errors=[], **context))


def _quotes_limited(query: Mapping[str, str], exc: HTTPException) -> HTMLResponse:
    """The form as typed with the limit's message, and the API's 429 and Retry-After (the
    page route's generic error page would drop the header)."""
    message = exc.detail.get("message") if isinstance(exc.detail, dict) else str(exc.detail)
    context = quotes_context(query, None, None)
    html = render("quotes.html", errors=[FieldError("", str(message))], **context)
    return HTMLResponse(html, status_code=429, headers=exc.headers)


router.add_api_route(
    "/quotes",
    quotes_page,
    methods=["GET"],
    response_class=HTMLResponse,
    route_class_override=QuotesPageRoute,
)


class PriceCheckPageRoute(HtmlPageRoute):
    def error_page(self, request: Request, errors: list[FieldError], status: int) -> Response:
        # The check's form as typed, its errors beside it; the standard builds need a
        # session and are one click away on /quotes.
        check = check_context(request.query_params, None, errors)
        html = render("quotes.html", errors=[], **quotes_context({}, None, None, check))
        return HTMLResponse(html, status_code=status)


def price_check_page(
    request: Request, session: SessionDep, settings: SettingsDep, model: ModelDep
) -> HTMLResponse:
    """A vendor's quote against today's market, on the quote page: POST /prices/check's
    body as the query, its validation and its route function. Read only, as the API's
    check is, so a GET form (shareable, works without JavaScript) is safe."""
    query = request.query_params
    answer = None
    if query:  # a bare /quotes/check is the empty form
        try:
            body = check_body(query)
        except ValidationError as exc:  # the same field names and messages as the JSON 422
            raise RequestValidationError(exc.errors()) from exc
        answer = check_quote(body, session, settings, model)
    check = check_context(query, answer)
    context = quotes_context({}, None, standard_quotes(session), check)
    return HTMLResponse(render("quotes.html", errors=[], **context))


# Before /quotes/{quote_id}, whose pattern "check" would match.
router.add_api_route(
    "/quotes/check",
    price_check_page,
    methods=["GET"],
    response_class=HTMLResponse,
    route_class_override=PriceCheckPageRoute,
)


class QuotePageRoute(HtmlPageRoute):
    """/quotes/{id} for browsers, except an explicit ?format= (the CSV export link): that
    is the API's answer, so it falls through to the JSON route."""

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if scope["type"] == "http" and "format" in parse_qs(
            scope.get("query_string", b"").decode()
        ):
            return Match.NONE, {}
        return super().matches(scope)


def quote_page(quote_id: Annotated[str, Path(max_length=64)], session: SessionDep) -> Response:
    """A stored quote (a shared link, a standard build) with the form that rebuilds it."""
    found = quotes_api.out(quotes_api.find(session, quote_id))
    if found.kind != "cluster":  # comparisons have no page: the browser gets the JSON
        return JSONResponse(jsonable_encoder(found))
    quote = quote_view(found)
    context = quotes_context(found.request, quote, standard_quotes(session))
    return HTMLResponse(render("quotes.html", errors=[], **context))


router.add_api_route(
    "/quotes/{quote_id}",
    quote_page,
    methods=["GET"],
    response_class=HTMLResponse,
    route_class_override=QuotePageRoute,
)
