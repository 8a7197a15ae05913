"""Human studies (PhyGround's protocol): the annotation web app (:mod:`.app`, :mod:`.db`,
:mod:`.assign`), quality control (:mod:`.quality`, :mod:`.qc`), analyses (:mod:`.report`) and
simulated annotators of known truth (:mod:`.simulate`). Commands: ``lawful study …`` (:mod:`.cli`).
FastAPI, uvicorn and SQLAlchemy are imported only by the modules that need them."""
