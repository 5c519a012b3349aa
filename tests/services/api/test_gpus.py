import pytest


def test_list_filters_and_paginates(market_client):
    page = market_client.get("/gpus", params={"min_memory_gb": 40, "limit": 5}).json()
    assert page["total"] > 5 and len(page["items"]) == 5
    assert all(g["memory_gb"] >= 40 for g in page["items"])
    second = market_client.get(
        "/gpus", params={"min_memory_gb": 40, "limit": 5, "offset": 5}
    ).json()
    assert {g["id"] for g in page["items"]}.isdisjoint(g["id"] for g in second["items"])
    dc = market_client.get("/gpus", params={"datacenter": "true", "limit": 100}).json()
    assert dc["items"] and not any(g["geforce_eula"] for g in dc["items"])
    amd = market_client.get("/gpus", params={"vendor": "AMD"}).json()
    assert amd["items"] and all(g["vendor"] == "AMD" for g in amd["items"])


def test_detail_has_specs_prices_and_provenance(market_client):
    body = market_client.get("/gpus/rtx-3090").json()
    assert body["id"] == "rtx-3090" and body["specs"]["memory_gb"] == 24
    assert "tpu:" in body["provenance"]["sources"]
    assert body["market_prices"]["used"]["usd"] == "800.00"
    assert body["market_prices"]["new"]["kind"] == "msrp"
    assert body["latest_by_kind"]["scraped:used"]["source"] == "test-market"


def test_detail_resolves_aliases(market_client):
    for alias in ("GeForce RTX 3090", "RTX3090", "nvidia-geforce-rtx-3090"):
        assert market_client.get(f"/gpus/{alias}").json()["id"] == "rtx-3090"


def test_unknown_gpu_is_404_with_a_hint(market_client):
    response = market_client.get("/gpus/rtx-9999")
    assert response.status_code == 404
    assert "GET /gpus" in response.json()["message"]


def test_bad_filter_is_422(market_client):
    response = market_client.get("/gpus", params={"segment": "gaming"})
    assert response.status_code == 422
    assert "segment" in response.json()["message"]


def test_health_and_docs(market_client):
    health = market_client.get("/health").json()
    assert health["database"] == "ok" and health["prices"]["cloud"]["stale"] is None
    assert market_client.get("/docs").status_code == 200
    assert "/recommend" in market_client.get("/openapi.json").json()["paths"]


def test_detail_lists_cloud_offers_per_gpu_hour(bundled_client):
    body = bundled_client.get("/gpus/a100-80gb-sxm4").json()
    assert body["cloud"], "bundled cloud catalogs price the A100 80GB SXM4"
    for offer in body["cloud"]:
        assert float(offer["usd_per_gpu_hour"]) > 0 and offer["observed_at"]


def test_paths_shared_with_html_pages_vary_on_accept(market_client):
    json_answer = market_client.get("/gpus/rtx-3090")
    assert json_answer.headers["vary"] == "Accept"
    assert json_answer.headers["content-type"].startswith("application/json")
    page = market_client.get("/gpus/rtx-3090", headers={"Accept": "text/html"})
    assert page.headers["content-type"].startswith("text/html") and page.headers["vary"] == "Accept"


def test_the_mi350x_added_for_model_v2_is_listed_with_its_sources(market_client):
    body = market_client.get("/gpus/MI350X").json()
    assert body["id"] == "mi350x" and body["specs"]["memory_gb"] == 288
    assert "gpupoet:amd-instinct-mi350x" in body["provenance"]["sources"]
    amd = market_client.get("/gpus", params={"vendor": "AMD", "limit": 100}).json()
    assert "mi350x" in {g["id"] for g in amd["items"]}


def test_detail_today_prices_are_the_ones_the_ranking_uses(bundled_client):
    ranked = bundled_client.get(
        "/recommend", params={"task": "cv", "condition": "used", "limit": 100}
    ).json()["results"]
    estimated = [r for r in ranked if r["price"]["estimated"]]
    fresh = [r for r in ranked if not r["price"]["estimated"]]
    assert estimated, "the bundled used prices include stale ones, moved to today"
    for result in estimated[:3] + fresh[:2]:
        today = bundled_client.get(f"/gpus/{result['gpu']['id']}").json()["today_prices"]["used"]
        assert today["usd"] == str(result["price"]["usd"])
        assert today["estimated"] == result["price"]["estimated"]
        # The band widens with the time since the observation: the stored one was
        # computed minutes before this request.
        band = [float(v) for v in result["price"]["band_usd"]]
        assert [float(v) for v in today["band_usd"]] == pytest.approx(band, rel=1e-3)
        assert today["basis"] == result["price"]["basis"] and today["reason"] is None


def test_detail_today_prices_say_why_a_card_has_none(bundled_client):
    unranked = bundled_client.get(
        "/recommend", params={"task": "cv", "condition": "used", "limit": 1}
    ).json()["unranked"]
    assert unranked, "some bundled used price is too old or too thin to stand for today"
    first = unranked[0]
    today = bundled_client.get(f"/gpus/{first['gpu']['id']}").json()["today_prices"]["used"]
    assert today["usd"] is None and today["band_usd"] is None
    assert today["reason"] == first["reason"]
