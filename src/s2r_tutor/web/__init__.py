"""The chat (Gradio), the /embed widget and the HTTP API, served together by `server.serve()`.

Nothing here imports Gradio or FastAPI at package import; each module does so itself.
"""
