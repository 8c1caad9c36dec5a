"""Open the chat: `python app.py` (same as `s2r-tutor serve`), then http://127.0.0.1:7860."""

from s2r_tutor.web.server import serve

if __name__ == "__main__":
    serve()
